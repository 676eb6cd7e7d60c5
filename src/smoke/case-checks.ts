/**
 * Checks of the selected cases against the profile they will run on, before any of them starts:
 * outcomes chosen on the approval page need the emulator, and each case's flow options must pass
 * the flow's own validation (the same checks `paytx flow` makes). A problem is reported at the
 * case's line, like the problems of the file itself, and nothing runs.
 */
import {InputError} from '../errors.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {type ScenarioProblem, ScenarioError} from '../input/scenario-error.js'
import {MANUAL_OUTCOME} from './scenario-schema.js'
import type {SmokeCase} from './scenario.js'
import {toFlowOptions} from './runner.js'

/** Stands in for a reference's value, which exists only once the case it names has run. */
const REFERENCE_PLACEHOLDER = 'value-from-an-earlier-case'

export async function checkCasesForProfile(cases: readonly SmokeCase[], file: string, profile: ResolvedProfile, options: {openBrowser: boolean}): Promise<void> {
  const {validateFlowOptions} = await import('../flow/flow-options.js')
  const problems: ScenarioProblem[] = []
  const env = profile.profile.env
  for (const smokeCase of cases) {
    const where = {path: `cases[${smokeCase.index}]`, line: smokeCase.line}
    if (env !== 'local' && smokeCase.faults?.length) {
      problems.push({...where, message: `case "${smokeCase.name}" has faults:, which only the local emulator applies; profile "${profile.name}" is ${env}`})
      continue
    }
    if (env !== 'local' && (smokeCase.start || smokeCase.expect.delivered)) {
      const what = smokeCase.start ? "has start: (the merchant's payment is completed on the emulator's approval page)" : "has expect.delivered (read from the emulator's delivery log)"
      problems.push({...where, message: `case "${smokeCase.name}" ${what}, which needs the emulator; profile "${profile.name}" is ${env}`})
      continue
    }
    // Nothing of paytx's own starts the payment: the merchant's service does, and answers for it.
    if (smokeCase.start) continue
    if (env !== 'local' && smokeCase.outcome !== MANUAL_OUTCOME) {
      problems.push({
        ...where,
        message: `case "${smokeCase.name}" chooses ${smokeCase.outcome} on the approval page, which only the emulator offers; profile "${profile.name}" is ${env}: use outcome: ${MANUAL_OUTCOME}`,
      })
      continue
    }
    try {
      await validateFlowOptions(profile, toFlowOptions(smokeCase, () => REFERENCE_PLACEHOLDER, {openBrowser: options.openBrowser}))
    } catch (error) {
      if (!(error instanceof InputError)) throw error
      problems.push({...where, message: `case "${smokeCase.name}": ${error.message.replace(/\n\s*/g, '; ')}`})
    }
  }
  if (problems.length > 0) throw new ScenarioError(file, problems)
}
