import * as Args from '@oclif/core/args'

import {InputError} from '../../errors.js'
import {BaseCommand} from '../../cli/base-command.js'

export type ProfileUseResult = {active: string}

export default class ProfileUse extends BaseCommand<typeof ProfileUse, ProfileUseResult> {
  static override summary = 'Make a profile the active one (the default of every command).'
  static override examples = ['<%= config.bin %> profile use sandbox', '<%= config.bin %> profile use local']

  static override args = {
    name: Args.string({description: 'Profile name', required: true}),
  }

  public async run(): Promise<ProfileUseResult> {
    const {name, shadowedBy} = toProfileUseOptions(this.args, this.ctx.env)
    const store = this.profileStore()
    await store.update((data) => {
      if (!store.get(name, data)) {
        throw new InputError(`No profile named "${name}". Known profiles: ${store.list(data).map((entry) => entry.name).join(', ')}.`, {
          flag: 'name',
          hint: `Create it with \`${this.commandLine(`profile add ${name}`)}\`.`,
        })
      }
      data.active = name
    })
    this.note(`Active profile: ${name}.`)
    if (shadowedBy) this.warnUser(`PAYTX_PROFILE=${shadowedBy} is set and takes precedence in this shell.`)
    return {active: name}
  }
}

export interface ProfileUseOptions {
  name: string
  /** PAYTX_PROFILE when it names another profile: it, not the active one, is used in this shell. */
  shadowedBy?: string
}

export function toProfileUseOptions(args: {name: string}, env: NodeJS.ProcessEnv): ProfileUseOptions {
  const shadowedBy = env.PAYTX_PROFILE && env.PAYTX_PROFILE !== args.name ? env.PAYTX_PROFILE : undefined
  return {name: args.name, ...(shadowedBy ? {shadowedBy} : {})}
}
