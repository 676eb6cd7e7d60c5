import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../cli/base-command.js'
import {hideFlags} from './emulator/start.js'

export default class OpenApi extends BaseCommand<typeof OpenApi, Record<string, unknown>> {
  static override summary = "Print the service's contract as an OpenAPI 3.1 document: endpoints, request and answer bodies, errors, the webhook."

  static override description = `Generated from the schemas paytx validates requests with and its emulator answers by, so it says what paytx and the emulator take the contract to be: the five endpoints (the card proxy on its own server), every request and answer body, the error object, the transaction webhook's body, the statuses with the final and success sets (x-final-statuses, x-success-statuses). Where the service documents nothing, it follows the emulator's assumptions (paytx emulator assumptions).

The same document ships in the package as schemas/openapi.json. Point a client generator, a mock server or a contract test at it.`

  static override examples = ['<%= config.bin %> openapi > openapi.json', '<%= config.bin %> openapi --compact | jq \'.components.schemas.Transaction\'']

  static override baseFlags = hideFlags(BaseCommand.baseFlags)

  static override flags = {
    compact: Flags.boolean({summary: 'One line instead of indented JSON.', default: false}),
  }

  public async run(): Promise<Record<string, unknown>> {
    const options = toOpenApiOptions(this.flags)
    const {openApiDocument} = await import('../api/openapi.js')
    const document = openApiDocument(this.config.version)
    this.print(JSON.stringify(document, null, options.indent))
    return document
  }
}

/** How to print the document: indented for people and diffs, or one line. */
export function toOpenApiOptions(flags: {compact: boolean}): {indent: number | undefined} {
  return {indent: flags.compact ? undefined : 2}
}
