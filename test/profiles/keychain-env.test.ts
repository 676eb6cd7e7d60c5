import {describe, expect, it} from 'vitest'

import {keychainProcessEnv} from '../../src/profiles/keychain.js'

describe('keychainProcessEnv', () => {
  it('keeps what the keychain needs (the session bus, HOME, PATH) and drops what only slows a Node start', () => {
    const env = {
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      HOME: '/home/jane',
      PATH: '/usr/bin',
      XDG_RUNTIME_DIR: '/run/user/1000',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
      NODE_OPTIONS: '--require ./preload.cjs',
    }
    expect(keychainProcessEnv(env)).toEqual({
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      HOME: '/home/jane',
      PATH: '/usr/bin',
      XDG_RUNTIME_DIR: '/run/user/1000',
    })
    expect(env.NODE_OPTIONS).toBe('--require ./preload.cjs')
  })
})
