/**
 * V8 sizes its heap for servers that trade memory for throughput: in a process that allocates
 * steadily for long, it doubles the young generation up to 16 MB per semi-space and lets the old
 * generation grow to about four times what is live before collecting it. A CLI working through
 * 50,000 ids holds about 10 MB live the whole time, yet its resident memory grew from 70 MB at
 * 1,000 ids to 125 MB at 50,000 (measured with bench/lookups-memory.js), all of it garbage V8
 * had not yet been asked to collect. The lookups wait on the network, not on the collector, so
 * for such a run V8 is told to keep its heap small instead: the young generation stays at its
 * starting size and the old one grows by little before a collection (73 MB at 50,000 ids, about
 * 10% more CPU time).
 *
 * Both settings are ones V8 reads each time it sizes the heap, which is why setting them once the
 * process runs takes effect (a size given only at start-up, like --max-semi-space-size, would not).
 */
import {PerformanceObserver} from 'node:perf_hooks'
import {getHeapSpaceStatistics, setFlagsFromString} from 'node:v8'

export function preferSmallHeap(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
  setFlagsFromString('--optimize-for-size')
}

/**
 * For a server under a steady stream of requests (`webhook listen`): what each request holds
 * while it is in flight survives the scavenges that happen meanwhile, and V8 doubles the young
 * generation each time as many bytes have survived as it holds, up to 32 MB, however little is
 * alive. The listener's peak resident memory rose from 106 MB after 100,000 webhooks to 125 MB
 * after 300,000 on Node 24 (and on Node 20), flat from there to 1,000,000, while its heap after a
 * collection stayed at 8 MB. preferSmallHeap would hold it near 90 MB but costs the listener
 * 18% more CPU per webhook on Node 20 (--optimize-for-size); a young generation kept from
 * growing at all (1 MB) costs 10 to 25%, one held at 8 MB costs no more than the noise of the
 * measurement and keeps the peak flat near 95 MB.
 *
 * V8 has no ceiling for the young generation that can be set once the process runs, only the
 * factor it grows by, so that factor is switched after each collection: 1 (no growth) once the
 * young generation has reached `megabytes`, back to V8's 2 should it have shrunk below (as it
 * does after a spell without load). A collection is reported after it is done, so one that comes
 * before the report of the last may still grow it: on Node 24, a young generation held at 4 MB
 * reached 4.5 to 5.75 MB in 4 runs of 30, never a doubling.
 */
export function holdYoungGenerationAt(megabytes: number): void {
  // Once a process: a second command run in it (the tests run many) moves the ceiling only.
  const first = held === undefined
  held = {ceiling: megabytes * 1024 * 1024, growing: held?.growing ?? true}
  if (!first) return
  const observer = new PerformanceObserver(() => {
    const hold = held!
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
    const grow = young === undefined || young.space_size < hold.ceiling
    if (grow === hold.growing) return
    hold.growing = grow
    setFlagsFromString(`--semi-space-growth-factor=${grow ? 2 : 1}`)
  })
  observer.observe({entryTypes: ['gc']})
}

let held: {ceiling: number; growing: boolean} | undefined
