import {BaseCommand} from '../../cli/base-command.js'
import {type ProfileView, profileView, renderProfileList} from '../../output/profile.js'
import {envOverrides} from '../../profiles/resolve.js'

export type ProfileListResult = {active: string; path: string; profiles: ProfileView[]}

export default class ProfileList extends BaseCommand<typeof ProfileList, ProfileListResult> {
  static override summary = 'List the profiles; * marks the one in use, [env] that environment variables override it.'
  static override description = `The profile in use is --profile, else PAYTX_PROFILE, else the active one (\`paytx profile use\`),
else the built-in "local" profile. Keys are shown redacted. A table on a terminal, tab-separated
under a header line in a pipe.`

  static override examples = ['<%= config.bin %> profile list', '<%= config.bin %> profile list --json']

  public async run(): Promise<ProfileListResult> {
    const store = this.profileStore()
    const data = store.read()
    const {selected, overrides} = toProfileListOptions(this.flags, this.ctx.env)
    const inUse = selected ?? store.activeName(data)
    const entries = store.list(data)
    await Promise.all(entries.map((entry) => this.fillKeysFromKeychain(entry)))
    const profiles = entries.map((entry) => {
      const using = entry.name === inUse
      return profileView(entry.name, entry.profile, {active: using, builtin: entry.builtin, envOverrides: using ? (overrides as never[]) : []})
    })
    if (!profiles.some((view) => view.active)) this.warnUser(`the selected profile "${inUse}" does not exist.`)
    const {tableFormatFor, terminalWidth} = await import('../../output/table.js')
    this.print(renderProfileList(profiles, {format: tableFormatFor(this.ctx.io.stdout), width: terminalWidth(this.ctx.io.stdout)}))
    return {active: inUse, path: store.path, profiles}
  }
}

export interface ProfileListOptions {
  /** The profile asked for by --profile or PAYTX_PROFILE; undefined: the active one. */
  selected: string | undefined
  /** The environment variables that override the profile in use (PAYTX_PROFILE when it chose it). */
  overrides: string[]
}

export function toProfileListOptions(flags: {profile?: string}, env: NodeJS.ProcessEnv): ProfileListOptions {
  return {
    selected: flags.profile || env.PAYTX_PROFILE || undefined,
    overrides: [...(env.PAYTX_PROFILE && !flags.profile ? ['PAYTX_PROFILE'] : []), ...envOverrides(env)],
  }
}
