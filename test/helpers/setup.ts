/** Runs in every test file (vitest.config.ts setupFiles). */
import {afterAll} from 'vitest'

import {killStartedClis} from './cli.js'

afterAll(() => killStartedClis())
