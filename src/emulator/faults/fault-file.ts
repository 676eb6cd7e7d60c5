/**
 * Reading a fault file (YAML or JSON) the way scenario files are read: every problem at once,
 * each with its line and column, and an input error (exit 2) before the emulator starts.
 */

import {InputError} from '../../errors.js'
import {readFileCapped} from '../../input/bounded-read.js'
import {fileReadReason} from '../../input/file-read-error.js'
import {structureProblems} from '../../input/located-issues.js'
import {type DocumentKind, ScenarioError} from '../../input/scenario-error.js'
import {parseScenarioText} from '../../input/scenario-source.js'
import {type FaultFile, faultFileKeysAt, faultFileSchema} from './fault-schema.js'

export const FAULT_FILE_DOCUMENT: DocumentKind = {
  noun: 'fault file',
  consequence: 'the emulator was not started',
  hint: 'The fault file format is described in the README (section "Faults on purpose") and in schemas/emulator-faults.schema.json.',
  whenEmpty: 'the file is empty; a fault file needs `rules:` (a list, which may be empty)',
}

/** Checks the text of a fault file; throws a ScenarioError listing every problem with its line. */
export function parseFaultFile(file: string, text: string): FaultFile {
  const source = parseScenarioText(file, text, FAULT_FILE_DOCUMENT)
  const parsed = faultFileSchema.safeParse(source.data)
  if (parsed.success) return parsed.data
  const problems = structureProblems(parsed.error.issues, source.data, source.locate, {
    allowedKeysAt: faultFileKeysAt,
    notAMapping: 'a fault file must be a mapping with a `rules:` list',
  })
  throw new ScenarioError(file, problems, FAULT_FILE_DOCUMENT)
}

export async function loadFaultFile(file: string): Promise<FaultFile> {
  let text: string
  try {
    text = await readFileCapped(file, {flag: '--faults'})
  } catch (error) {
    if (error instanceof InputError) throw error
    throw new InputError(`--faults: cannot read the fault file ${file}: ${fileReadReason(error)}.`, {flag: '--faults'})
  }
  return parseFaultFile(file, text)
}
