import * as Args from '@oclif/core/args'

import {InputError} from '../../errors.js'
import {BaseCommand} from '../../base-command.js'

export type ProfileUseResult = {active: string}

export default class ProfileUse extends BaseCommand<typeof ProfileUse, ProfileUseResult> {
  static override summary = 'Make a profile the active one (the default of every command).'
  static override examples = ['<%= config.bin %> profile use sandbox', '<%= config.bin %> profile use local']

  static override args = {
    name: Args.string({description: 'Profile name', required: true}),
  }

  public async run(): Promise<ProfileUseResult> {
    const {name} = this.args
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
    if (this.ctx.env.PAYTX_PROFILE && this.ctx.env.PAYTX_PROFILE !== name) {
      this.warnUser(`PAYTX_PROFILE=${this.ctx.env.PAYTX_PROFILE} is set and takes precedence in this shell.`)
    }
    return {active: name}
  }
}
