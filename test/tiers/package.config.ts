// `npm run test:package` (the tiers: test/tiers.ts).
import {tierConfig} from '../tiers.js'

export default tierConfig(['package'])
