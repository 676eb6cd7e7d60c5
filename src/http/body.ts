/**
 * Reading a request body with a size limit, for the local servers. Exceeding the limit is a
 * typed error, so the caller answers 413 in its own words.
 */
import type {IncomingMessage} from 'node:http'

export class BodyTooLargeError extends Error {
  readonly limitBytes: number

  constructor(limitBytes: number) {
    super(`The body is larger than ${limitBytes} bytes.`)
    this.name = 'BodyTooLargeError'
    this.limitBytes = limitBytes
  }
}

/**
 * The whole body, or BodyTooLargeError as soon as the declared length or the bytes received pass
 * `limitBytes`; the rest of an oversized body is read and dropped, so the answer can still be sent.
 */
export function readCappedBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > limitBytes) {
      req.resume()
      reject(new BodyTooLargeError(limitBytes))
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let refused = false
    req.on('data', (chunk: Buffer) => {
      if (refused) return
      size += chunk.length
      if (size > limitBytes) {
        refused = true
        chunks.length = 0
        reject(new BodyTooLargeError(limitBytes))
        return
      }
      chunks.push(chunk)
    })
    req.on('error', (error) => {
      if (!refused) reject(error)
      refused = true
    })
    req.on('end', () => {
      if (!refused) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
    })
  })
}
