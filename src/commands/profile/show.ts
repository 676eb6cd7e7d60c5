import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'
import {type ProfileView, profileView, renderProfile} from '../../output/profile.js'
import {lineWidth} from '../../output/wrap.js'
import {resolveProfile} from '../../profiles/resolve.js'

export type ProfileShowResult = ProfileView & {path: string}

export default class ProfileShow extends BaseCommand<typeof ProfileShow, ProfileShowResult> {
  static override summary = 'Show a profile as commands will use it (keys redacted, where each key lives, environment overrides marked).'
  static override examples = ['<%= config.bin %> profile show', '<%= config.bin %> profile show production --json']

  static override args = {
    name: Args.string({description: 'Profile name (default: the profile in use)'}),
  }

  public async run(): Promise<ProfileShowResult> {
    const store = this.profileStore()
    const data = store.read()
    const resolved = resolveProfile(store, {...toProfileShowOptions(this.flags, this.args), env: this.ctx.env})
    await this.fillKeysFromKeychain(resolved)
    const view = profileView(resolved.name, resolved.profile, {
      active: resolved.name === store.activeName(data),
      builtin: !data.profiles[resolved.name],
      envOverrides: resolved.overrides,
      stored: data.profiles[resolved.name],
      production: resolved.production,
    })
    this.print(renderProfile(view, {width: lineWidth(this.ctx.io.stdout)}))
    return {...view, path: store.path}
  }
}

/** The profile to show: the argument, else --profile; undefined: the one in use. */
export function toProfileShowOptions(flags: {profile?: string}, args: {name?: string}): {name: string | undefined} {
  return {name: args.name ?? flags.profile}
}
