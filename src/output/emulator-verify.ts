/** `emulator verify`'s report: each request with its two status codes, then its differences and the assumptions they touch. */
import type {VerifyReport} from '../emulator-verify/run-verify.js'
import {visibleText} from '../terminal/visible-text.js'

const KIND_TEXT = {
  status: (real: string, emulator: string) => `status ${real} from the service, ${emulator} from the emulator`,
  'only-real': (real: string) => `only the service sends it (${real})`,
  'only-emulator': (_real: string, emulator: string) => `only the emulator sends it (${emulator})`,
  type: (real: string, emulator: string) => `a ${real} from the service, a ${emulator} from the emulator`,
} as const

export function renderVerifyReport(report: VerifyReport): string {
  const lines: string[] = []
  for (const result of report.probes) {
    if (result.skipped) {
      lines.push(`- ${result.title}: not sent (${result.skipped})`)
      continue
    }
    const statuses = `${result.real!.status} / ${result.emulator!.status}`
    lines.push(`${result.differences.length === 0 ? '✔' : '✖'} ${result.title}  ${statuses}${result.differences.length === 0 ? '  same fields and types' : ''}`)
    for (const difference of result.differences) {
      const where = difference.kind === 'status' ? '' : `${difference.path}: `
      const touches = difference.assumptions.length > 0 ? `  [assumption: ${difference.assumptions.join(', ')}]` : '  [no listed assumption]'
      lines.push(`    ${visibleText(where + KIND_TEXT[difference.kind](difference.real, difference.emulator))}${touches}`)
    }
  }
  lines.push(
    '',
    report.differences === 0
      ? `The emulator answered as the service did to every request (profile "${report.profile}").`
      : `${report.differences} difference${report.differences === 1 ? '' : 's'} between profile "${report.profile}" and the emulator. \`paytx emulator assumptions\` explains each assumption and its switch.`,
  )
  return lines.join('\n')
}
