// `npm run test:all`: every tier in one run (the tiers: test/tiers.ts).
import {tierConfig} from '../tiers.js'

export default tierConfig(['default', 'browser', 'package', 'system'])
