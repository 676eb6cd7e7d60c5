import {homedir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {defaultStorePath, isUuid, parsePaymentProfileSetting, paytxDataDir, resolveStoreLocation} from '../../../src/emulator/store/index.js'

describe('where the emulator store lives', () => {
  it.each([
    ['PAYTX_DATA_DIR wins', {PAYTX_DATA_DIR: '/srv/paytx', XDG_DATA_HOME: '/xdg', LOCALAPPDATA: 'C:\\Local'}, 'linux', '/srv/paytx'],
    ['XDG_DATA_HOME on Linux', {XDG_DATA_HOME: '/xdg'}, 'linux', join('/xdg', 'paytx')],
    ['XDG_DATA_HOME on macOS', {XDG_DATA_HOME: '/xdg'}, 'darwin', join('/xdg', 'paytx')],
    ['~/.local/share on Linux', {}, 'linux', join(homedir(), '.local', 'share', 'paytx')],
    ['~/.local/share on macOS', {}, 'darwin', join(homedir(), '.local', 'share', 'paytx')],
    ['%LOCALAPPDATA% on Windows', {LOCALAPPDATA: 'C:\\Users\\jana\\AppData\\Local'}, 'win32', join('C:\\Users\\jana\\AppData\\Local', 'paytx')],
  ] as const)('%s', (_name, env, platform, expected) => {
    expect(paytxDataDir(env, platform)).toBe(expected)
    expect(defaultStorePath(env, platform)).toBe(join(expected, 'emulator.db'))
  })

  it('takes --store as a path relative to the current folder, and :memory: as it is', () => {
    expect(resolveStoreLocation(':memory:')).toBe(':memory:')
    expect(resolveStoreLocation('state/emulator.db')).toBe(join(process.cwd(), 'state', 'emulator.db'))
  })
})

describe('ids given to the emulator', () => {
  it.each([
    ['3f1c2a9e-0000-4000-8000-000000000202', {id: '3f1c2a9e-0000-4000-8000-000000000202'}],
    ['3F1C2A9E-0000-4000-8000-000000000202', {id: '3f1c2a9e-0000-4000-8000-000000000202'}],
    ['3f1c2a9e-0000-4000-8000-000000000202=http://127.0.0.1:4242/hooks?k=v', {id: '3f1c2a9e-0000-4000-8000-000000000202', webhookUrl: 'http://127.0.0.1:4242/hooks?k=v'}],
    ['acme', '"acme" is not a UUID'],
    ['3f1c2a9e-0000-4000-8000-000000000202=ftp://x', '"ftp://x" is not an absolute http(s) URL'],
    ['3f1c2a9e-0000-4000-8000-000000000202=', '"" is not an absolute http(s) URL'],
  ])('--payment-profile %s', (text, expected) => {
    expect(parsePaymentProfileSetting(text)).toEqual(expected)
  })

  it('knows a UUID', () => {
    expect(isUuid('0a0f2c55-6c8e-4c51-9b0e-3e7a1d000001')).toBe(true)
    expect(isUuid('0a0f2c55-6c8e-4c51-9b0e-3e7a1d00000')).toBe(false)
  })
})
