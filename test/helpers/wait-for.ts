/**
 * Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. The
 * limit only ends a test that already failed, so it is generous: a spawned program may take
 * seconds to start while two test suites share a loaded 2-core machine.
 */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
