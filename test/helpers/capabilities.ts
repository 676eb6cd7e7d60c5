/**
 * Whether this machine has what a gated group of tests needs, as test/tiers.ts found it before
 * the run (it also printed the line saying what was skipped and how to get it).
 */
import {inject} from 'vitest'

import type {CapabilityName} from '../tiers.js'

export const has = (capability: CapabilityName): boolean => !inject('paytxMissing').includes(capability)
