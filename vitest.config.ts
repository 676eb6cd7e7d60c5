// `npm test`: the default tier, what any fresh clone passes (the tiers: test/tiers.ts).
import {tierConfig} from './test/tiers.js'

export default tierConfig(['default'])
