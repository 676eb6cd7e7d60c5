import * as Args from '@oclif/core/args'

import {closestName} from '../../closest-name.js'
import {InputError} from '../../errors.js'
import {ENVIRONMENTS} from '../../profiles/presets.js'
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
        const known = store.list(data).map((entry) => entry.name)
        throw new InputError(`No profile named "${name}". Known profiles: ${known.join(', ')}.`, {flag: 'name', hint: this.unknownProfileHint(name, known)})
      }
      data.active = name
    })
    this.note(`Active profile: ${name}.`)
    if (shadowedBy) this.warnUser(`PAYTX_PROFILE=${shadowedBy} is set and takes precedence in this shell.`)
    return {active: name}
  }

  /** The closest known profile when the name looks mistyped; else the closest environment's name to create, or the name as typed. */
  private unknownProfileHint(name: string, known: string[]): string {
    const closest = closestName(name, known)
    if (closest) return `did you mean \`${this.commandLine(`profile use ${closest}`)}\`?`
    const environment = closestName(name, ENVIRONMENTS.filter((env) => !known.includes(env)))
    if (environment) return `did you mean "${environment}"? There is no such profile yet: create it with \`${this.commandLine(`profile add ${environment}`)}\`.`
    return `Create it with \`${this.commandLine(`profile add ${name}`)}\`.`
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
