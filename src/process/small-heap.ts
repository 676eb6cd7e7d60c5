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
import {setFlagsFromString} from 'node:v8'

export function preferSmallHeap(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
  setFlagsFromString('--optimize-for-size')
}
