/**
 * Listening, as every local server of paytx does it (webhook receiver, the flow's redirect
 * listener, the emulator): the socket errors a person can cause with --host and --port become
 * input errors that name the flag and say what to do instead of a bare EADDRINUSE.
 */
import type {Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {InputError} from '../errors.js'

export type ListenProblem = 'port-in-use' | 'port-not-allowed' | 'no-such-address'

/** The server could not listen for a reason the user can fix with --port or --host (exit 2). */
export class ListenError extends InputError {
  readonly problem: ListenProblem
  readonly host: string
  readonly port: number

  constructor(problem: ListenProblem, host: string, port: number, options: {flag: string; hint?: string}) {
    super(listenMessage(problem, host, port), options)
    this.name = 'ListenError'
    this.problem = problem
    this.host = host
    this.port = port
  }
}

function listenMessage(problem: ListenProblem, host: string, port: number): string {
  if (problem === 'port-in-use') return `Port ${port} on ${host} is in use; pick another with --port or stop the other program.`
  if (problem === 'port-not-allowed') return `Not allowed to listen on port ${port} on ${host}; ports below 1024 need privileges.`
  return `Cannot listen on ${host}: it is not an address of this machine.`
}

const PROBLEM_OF_CODE: Record<string, ListenProblem> = {
  EADDRINUSE: 'port-in-use',
  EACCES: 'port-not-allowed',
  EADDRNOTAVAIL: 'no-such-address',
  ENOTFOUND: 'no-such-address',
  EAI_AGAIN: 'no-such-address',
}

export interface ListenOptions {
  host: string
  /** 0 picks a free port. */
  port: number
  /** How to get a free port with this command, e.g. "--port 0 picks a free one." */
  freePortHint?: string
}

/** The socket error as a ListenError when the user can fix it, otherwise unchanged. */
export function toListenError(error: NodeJS.ErrnoException, {host, port, freePortHint = '--port 0 picks a free one.'}: ListenOptions): Error {
  const problem = error.code === undefined ? undefined : PROBLEM_OF_CODE[error.code]
  if (problem === 'port-in-use') return new ListenError(problem, host, port, {flag: '--port', hint: freePortHint})
  if (problem === 'port-not-allowed') return new ListenError(problem, host, port, {flag: '--port', hint: `Use a port above 1023; ${freePortHint}`})
  if (problem === 'no-such-address') return new ListenError(problem, host, port, {flag: '--host', hint: 'Use 127.0.0.1 (the default).'})
  return error
}

/** Starts listening; resolves with the address actually bound (the real port when 0 was asked). */
export async function listen(server: Server, options: ListenOptions): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(toListenError(error, options))
    server.once('error', onError)
    server.listen(options.port, options.host, () => {
      server.off('error', onError)
      resolve()
    })
  })
  return server.address() as AddressInfo
}
