/** One POST of a JSON body on a fresh connection (no keep-alive), as a webhook sender does. */
import {request} from 'node:http'

export function postJson(url: string, body: string, headers: Record<string, string | string[]> = {}): Promise<{status: number; text: string}> {
  return new Promise((resolve, reject) => {
    const req = request(url, {method: 'POST', agent: false, headers: {'content-type': 'application/json', ...headers}}, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({status: res.statusCode!, text}))
    })
    req.on('error', reject)
    req.end(body)
  })
}
