/** Runs in every test file (vitest.config.ts setupFiles). */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll} from 'vitest'

import {killStartedClis} from './cli.js'

// Commands run in-process get their environment from the context (test/helpers/run-command.ts);
// anything that still reads this process's environment finds private folders, never the user's.
const privateFolder = mkdtempSync(join(tmpdir(), 'paytx-test-process-'))
process.env.PAYTX_CONFIG_DIR = privateFolder
process.env.PAYTX_DATA_DIR = join(privateFolder, 'data')
process.env.PAYTX_CACHE_DIR = join(privateFolder, 'cache')
process.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(privateFolder, 'no-session-bus')}`

afterAll(() => killStartedClis())
