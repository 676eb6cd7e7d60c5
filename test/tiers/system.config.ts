// `npm run test:system` (the tiers: test/tiers.ts).
import {tierConfig} from '../tiers.js'

export default tierConfig(['system'])
