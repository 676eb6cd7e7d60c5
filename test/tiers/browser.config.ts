// `npm run test:browser` (the tiers: test/tiers.ts).
import {tierConfig} from '../tiers.js'

export default tierConfig(['browser'])
