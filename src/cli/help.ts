/**
 * oclif's help, naming paytx as the user ran it: `./bin/run.js` in a clone, where `paytx` is not
 * on the PATH, as every hint does (terminal/invoked-name.ts). oclif's `config.bin` stays `paytx`
 * for everything else (its environment variables are PAYTX_*).
 */
import type {Config} from '@oclif/core/config'
import {Help} from '@oclif/core/help'
import type {Interfaces} from '@oclif/core'

import {invokedName} from '../terminal/invoked-name.js'

/** The config as help sees it: the same, but `bin` is the name the user typed. */
function namedAsInvoked(config: Interfaces.Config): Interfaces.Config {
  const invokedAs = invokedName()
  if (invokedAs === config.bin) return config
  return new Proxy(config, {get: (target, key) => (key === 'bin' ? invokedAs : Reflect.get(target, key, target))}) as Config
}

export default class PaytxHelp extends Help {
  constructor(config: Interfaces.Config, options?: Partial<Interfaces.HelpOptions>) {
    super(namedAsInvoked(config), options)
  }
}
