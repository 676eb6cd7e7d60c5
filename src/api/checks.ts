/**
 * What the checks of requests (the contract's schemas, schemas.ts, zod) and of answers
 * (answers.ts) report: the issues, by field path; and schemas built on first use.
 */

export interface ValidationIssue {
  /** Dotted path of the field in the request body, e.g. `details.redirect_url`. */
  path: string
  message: string
}

/** A zod schema, as far as checking a body goes. */
interface Checkable {
  safeParse(body: unknown): {success: boolean; error?: {issues: readonly {path: PropertyKey[]; message: string}[]}}
}

/** The body's issues under the schema: none when it fits. */
export function issuesOf(schema: Checkable, body: unknown): ValidationIssue[] {
  const result = schema.safeParse(body)
  return result.success || !result.error ? [] : result.error.issues.map((issue) => ({path: issue.path.map(String).join('.') || '(body)', message: issue.message}))
}

/** A schema built on first use and kept. */
export function once<T>(build: () => T): () => T {
  let built: T | undefined
  return () => (built ??= build())
}
