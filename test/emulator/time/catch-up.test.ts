/**
 * A restart over many overdue transactions: the emulator listens at once and answers reads while
 * it catches up in short batches, and every overdue move is made once.
 */
import {randomUUID} from 'node:crypto'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {expect, it} from 'vitest'

import {type EmulatorEvent, startEmulator} from '../../../src/emulator/index.js'
import {EmulatorStore} from '../../../src/emulator/store/index.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {waitFor} from '../../helpers/wait-for.js'

const OVERDUE = 3000

it('listens before catching up on overdue moves, answers reads between batches, and makes every move once', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'paytx-catch-up-')), 'emulator.db')
  const first = await startEmulator({port: 0, store: path})
  const {transaction} = await emulatorApi(first).startPayment('dummy')
  await first.close()

  // Copies of it, each settling an hour ago: what a restart after a long pause finds.
  const store = EmulatorStore.open(path)
  const dueAt = Date.now() - 3_600_000
  const ids = Array.from({length: OVERDUE}, () => randomUUID())
  store.write(() => {
    for (const id of ids) store.insertTransaction({transaction: {...transaction, id, status: 'SETTLEMENT_REQUESTED'}, cvvGiven: false, dueAt})
  })
  store.close()

  const moves: EmulatorEvent[] = []
  const emulator = await startEmulator({port: 0, store: path, onEvent: (event) => event.event === 'status' && moves.push(event)})
  try {
    expect(moves.length).toBeLessThan(OVERDUE)
    const api = emulatorApi(emulator)
    // A read of one not yet moved is answered in between, with its move made.
    const read = await api.transaction(ids.at(-1)!)
    expect(moves.length).toBeLessThan(OVERDUE)
    expect(read.status).toBe(200)
    expect(read.body.status).toBe('SETTLEMENT_COMPLETED')
    await waitFor(() => moves.length >= OVERDUE, 'every overdue move', 30_000)
    const moved = moves.map((event) => (event as Extract<EmulatorEvent, {event: 'status'}>).transaction)
    expect(new Set(moved).size).toBe(OVERDUE)
    expect(moved).toHaveLength(OVERDUE)
    expect((await api.get('/_emulator/transactions?status=SETTLEMENT_REQUESTED')).body.transactions).toEqual([])
  } finally {
    await emulator.close()
  }
})
