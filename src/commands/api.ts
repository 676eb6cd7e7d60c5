import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand, EXIT_CODES_HELP} from '../cli/base-command.js'
import {endpointUrl, requestSecrets, toApiOptions} from '../input/api-request.js'
import {readFileCapped, readStreamCapped} from '../input/bounded-read.js'
import {renderApiAnswer, scrubAnswer} from '../output/api-answer.js'
import {explainUnknownPath} from '../api/routes.js'

export default class Api extends BaseCommand<typeof Api, unknown> {
  static override summary = 'Send any request to the service with the profile’s credentials, like `gh api`.'
  static override description = `For the operations paytx has no command for, and for a raw look at an answer. PATH is a path of
the service's API, /v1/transaction/<id> or transaction/<id> alike (whether the profile's base URL
ends in /v1 or not), or a URL on the profile's host: the key is never sent anywhere else, and
. or .. segments are refused. --h2h sends to the card proxy (the h2h URL) with the proxy key in
TX-Proxy-Key instead of the API key.

The method is GET, or POST when fields or --input are given; -X sets another. -f key=value adds a
string field, -F key=value a typed one (true, false, null and integers as JSON values, @file or @-
as the file's or stdin's text); a[b]=x nests, a[]=x appends to a list. Fields form a JSON body, or
the query string of a GET (or of a request whose body is --input).

The answer is printed on stdout as JSON: indented on a terminal, one line in a pipe; a body that
is not JSON as it came. Keys and card numbers are scrubbed. --include prints the status line and
headers first. An HTTP error status (400 and above) still prints the body, then exits 1.

--input and each @file or @- are read up to 10 MiB.

A request other than GET on a production profile asks for confirmation, or needs --yes. GETs are
retried on network errors and 5xx; no other method is sent twice.

${EXIT_CODES_HELP}`

  static override examples = [
    '<%= config.bin %> api /v1/transaction/9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c',
    '<%= config.bin %> api transaction/9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c/refund -F amount=500 -f reason="customer request" --include',
    '<%= config.bin %> api -X DELETE /v1/transaction/9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c/settlement --profile production --yes',
    'jq -n \'{first_name: "Jane"}\' | <%= config.bin %> api /v1/customer --input -',
  ]

  static override args = {
    path: Args.string({description: 'Path on the profile’s service (e.g. /v1/transaction/<id>), or a URL on its host.', required: true}),
  }

  static override flags = {
    method: Flags.string({char: 'X', summary: 'HTTP method: GET (default), POST (default with fields or --input), PUT, PATCH, DELETE, HEAD, OPTIONS.'}),
    'raw-field': Flags.string({char: 'f', multiple: true, summary: 'A string field, key=value (a[b]=x nests, a[]=x appends).'}),
    field: Flags.string({char: 'F', multiple: true, summary: 'A typed field, key=value: true, false, null, integers; @file or @- reads the value.'}),
    header: Flags.string({char: 'H', multiple: true, summary: 'A request header, "Name: value" (repeatable).'}),
    input: Flags.string({summary: 'A file holding the JSON body to send as is; - reads it from stdin.'}),
    include: Flags.boolean({char: 'i', summary: 'Print the status line and the response headers before the body.', default: false}),
    h2h: Flags.boolean({summary: 'Send to the card proxy (h2h URL) with the proxy key (TX-Proxy-Key), not the API key.', default: false}),
    yes: Flags.boolean({char: 'y', summary: 'Confirm a request other than GET on a production profile without asking.', default: false}),
  }

  public async run(): Promise<unknown> {
    const options = await toApiOptions(
      {...this.flags, path: this.args.path, json: this.jsonEnabled()},
      {readStdin: (flag) => readStreamCapped(this.ctx.io.stdin as AsyncIterable<Buffer | string>, {flag, source: 'stdin'}), readFile: (path, flag) => readFileCapped(path, {flag})},
    )
    const service = await this.service()
    this.addSecrets(...requestSecrets(options))
    const {baseUrl, headers} = service.endpointFor(options.target)
    const url = endpointUrl(baseUrl, options.endpoint, {target: options.target, query: options.query})
    if (options.method !== 'GET') await this.confirmProduction(`send ${options.method} ${new URL(url).pathname}`, options.yes)

    const request = {method: options.method, url, headers: {...headers, ...options.headers}, body: options.body, rawBody: options.rawBody}
    const {answer} = await service.http.exchange(request)
    const shown = scrubAnswer(answer, this.secrets, [service.target.profile.api_key_header])
    if (!this.jsonEnabled()) this.ctx.io.stdout.write(renderApiAnswer(shown, {include: options.include, pretty: Boolean(this.ctx.io.stdout.isTTY)}))
    const body = shown.json ?? (shown.text === '' ? null : shown.text)
    if (answer.status >= 400) throw explainUnknownPath(service.http.serviceError(request, answer, body), options.method, new URL(url).pathname, options.target)
    return body
  }
}

/** The parser lives with the request rules it applies (src/input/); the command exports it like every other's. */
export {toApiOptions} from '../input/api-request.js'
