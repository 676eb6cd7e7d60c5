/** What paytx's HTTP client sends and gives back: methods, requests, and the answers of a success. */

/** The methods paytx sends; only GET is ever retried after it may have reached the service. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]

export interface HttpRequest {
  method: HttpMethod
  url: string
  headers?: Record<string, string>
  /** Sent as JSON. */
  body?: unknown
  /** JSON text sent byte for byte instead of `body` (`paytx api --input`). */
  rawBody?: string
}

export interface HttpResponse<T = unknown> {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: T
  durationMs: number
  tries: number
}
