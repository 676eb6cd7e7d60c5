import {Args, Flags} from '@oclif/core'

import {InputError} from '../../errors.js'
import {BaseCommand} from '../../base-command.js'
import {removeProfileFrom} from '../../profiles/edit.js'
import {LOCAL_PROFILE_NAME} from '../../profiles/presets.js'
import type {ProfileStore, StoreData} from '../../profiles/store.js'

export default class ProfileRemove extends BaseCommand<typeof ProfileRemove> {
  static override summary = 'Remove a profile and its keys from the profile file.'
  static override description = `Asks for confirmation in a terminal; otherwise needs --yes. The built-in "local" profile
cannot be removed: removing it drops only stored changes to it.`

  static override examples = ['<%= config.bin %> profile remove staging', '<%= config.bin %> profile remove staging --yes']

  static override args = {
    name: Args.string({description: 'Profile name', required: true}),
  }

  static override flags = {
    yes: Flags.boolean({char: 'y', summary: 'Remove without asking.', default: false}),
  }

  public async run(): Promise<{removed: string; active: string}> {
    const {name} = this.args
    const store = this.profileStore()
    this.checkStored(store, store.read(), name)
    if (!this.flags.yes) {
      if (!this.canPrompt()) {
        throw new InputError(`Refusing to remove profile "${name}" without confirmation.`, {
          flag: '--yes',
          hint: 'Pass --yes, or run it in a terminal to be asked.',
        })
      }
      const {confirm} = await import('../../terminal/prompts.js')
      if (!(await confirm(`Remove profile "${name}" and its keys from ${store.path}?`))) {
        throw new InputError('Cancelled; the profile was kept.')
      }
    }
    const updated = await store.update((stored) => {
      // Checked again under the lock: another command may have removed it meanwhile.
      this.checkStored(store, stored, name)
      removeProfileFrom(stored, name)
    })
    const active = store.activeName(updated)
    this.note(name === LOCAL_PROFILE_NAME ? 'Removed the stored changes to "local"; the built-in profile remains.' : `Removed profile "${name}". Active profile: ${active}.`)
    return {removed: name, active}
  }

  private checkStored(store: ProfileStore, data: StoreData, name: string): void {
    if (Object.hasOwn(data.profiles, name)) return
    throw new InputError(
      name === LOCAL_PROFILE_NAME
        ? 'The built-in "local" profile cannot be removed (it has no stored changes).'
        : `No profile named "${name}". Known profiles: ${store.list(data).map((entry) => entry.name).join(', ')}.`,
      {flag: 'name'},
    )
  }
}
