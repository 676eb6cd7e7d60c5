import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {checkRemovable, removeProfileFrom} from '../../profiles/edit.js'
import {deleteKeychainEntries, describeLeftoverEntry, keychainAccounts} from '../../profiles/key-storage.js'
import {LOCAL_PROFILE_NAME} from '../../profiles/presets.js'

export type ProfileRemoveResult = {removed: string; active: string; keychain_entries_deleted: number}

export default class ProfileRemove extends BaseCommand<typeof ProfileRemove, ProfileRemoveResult> {
  static override summary = 'Remove a profile and its keys, from the profile file and the OS keychain.'
  static override description = `Asks for confirmation in a terminal; otherwise needs --yes. The built-in "local" profile
cannot be removed: removing it drops only stored changes to it.`

  static override examples = ['<%= config.bin %> profile remove staging', '<%= config.bin %> profile remove staging --yes']

  static override args = {
    name: Args.string({description: 'Profile name', required: true}),
  }

  static override flags = {
    yes: Flags.boolean({char: 'y', summary: 'Remove without asking.', default: false}),
  }

  public async run(): Promise<ProfileRemoveResult> {
    const {name, confirmed} = toProfileRemoveOptions(this.flags, this.args)
    const store = this.profileStore()
    checkRemovable(store.read(), name)
    await this.confirmOrRefuse({
      yes: confirmed,
      refusal: `Refusing to remove profile "${name}" without confirmation.`,
      question: `Remove profile "${name}" and its keys from ${store.path}?`,
      cancelled: 'Cancelled; the profile was kept.',
    })
    let accounts: string[] = []
    const updated = await store.update((stored) => {
      // Checked again under the lock: another command may have removed it meanwhile.
      checkRemovable(stored, name)
      accounts = keychainAccounts(stored.profiles[name])
      removeProfileFrom(stored, name)
    })
    const active = store.activeName(updated)
    this.note(name === LOCAL_PROFILE_NAME ? 'Removed the stored changes to "local"; the built-in profile remains.' : `Removed profile "${name}". Active profile: ${active}.`)
    // Deleted once the file no longer points at them: a failure leaves an entry, never a profile without its key.
    const failures = await deleteKeychainEntries(accounts, this.ctx.keychain)
    for (const failure of failures) this.note(describeLeftoverEntry(failure))
    return {removed: name, active, keychain_entries_deleted: accounts.length - failures.length}
  }
}

/** The profile to remove, and whether --yes already confirmed it. */
export function toProfileRemoveOptions(flags: {yes: boolean}, args: {name: string}): {name: string; confirmed: boolean} {
  return {name: args.name, confirmed: flags.yes}
}
