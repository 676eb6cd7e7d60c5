// What a child process keeps, read through its inspector: a forced full collection, then
// process.memoryUsage(). A reading of resident memory alone says as much about when V8 last
// collected (it grows its heap lazily while nothing presses it, more so on Node 24) as about
// what is alive; the heap after a collection is what is alive.
import {WebSocket} from 'undici'

/** Node's flag for a child to measure: its inspector on a free loopback port, announced on stderr. */
export const INSPECT_FLAG = '--inspect=127.0.0.1:0'

/** The inspector's address in what the child wrote on stderr, once it is there. */
export function inspectorUrl(stderr) {
  return /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1]
}

/**
 * Collects garbage in the child (twice: the first may only finish what was under way) and reads
 * its memory then, in MB. The session is closed after it, so that the child runs on as it would
 * without one and can exit without waiting for a debugger.
 */
export async function memoryAfterGc(url) {
  const socket = new WebSocket(url)
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, {once: true})
    socket.addEventListener('error', () => reject(new Error(`could not reach the inspector at ${url}`)), {once: true})
  })
  const answers = new Map()
  socket.addEventListener('message', (message) => {
    const answer = JSON.parse(message.data)
    answers.get(answer.id)?.(answer)
  })
  let lastId = 0
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++lastId
      answers.set(id, (answer) => (answer.error ? reject(new Error(`${method}: ${answer.error.message}`)) : resolve(answer.result)))
      socket.send(JSON.stringify({id, method, params}))
    })
  try {
    await send('HeapProfiler.collectGarbage')
    await send('HeapProfiler.collectGarbage')
    const {result} = await send('Runtime.evaluate', {expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true})
    const usage = JSON.parse(result.value)
    const mb = (bytes) => bytes / 1024 / 1024
    return {heapUsedMb: mb(usage.heapUsed), heapTotalMb: mb(usage.heapTotal), externalMb: mb(usage.external), rssMb: mb(usage.rss)}
  } finally {
    const closed = new Promise((resolve) => socket.addEventListener('close', resolve, {once: true}))
    socket.close()
    await closed
  }
}
