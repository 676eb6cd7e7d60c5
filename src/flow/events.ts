/**
 * What a flow reports while it runs, as data. The core emits these and never formats text;
 * renderers in `src/output/` turn them into a step list, a compact live line of a smoke case, or
 * the `timeline` of `paytx flow --json`.
 */

export type FlowStepName = 'customer' | 'card' | 'transaction' | 'approval' | 'redirect' | 'status'

export type FlowEventBody =
  /** A step began (a spinner's cue); `outcome` is the --approve outcome of the approval step. */
  | {kind: 'step-started'; step: FlowStepName; outcome?: string}
  /** A step ended in an error; the error itself ends the flow. */
  | {kind: 'step-failed'; step: FlowStepName; message: string}
  | {kind: 'customer-created'; customerId: string; profile: string}
  | {kind: 'customer-reused'; customerId: string}
  | {kind: 'card-tokenized'; cardId: string; last4: string; testCard: boolean}
  | {kind: 'card-reused'; cardId: string}
  | {kind: 'transaction-started'; transactionId: string; status: string}
  /** Webhooks go to the flow's listener on 127.0.0.1, which a remote service cannot reach. */
  | {kind: 'webhooks-unreachable'; webhookUrl: string}
  /** The tunnel the flow started is up; `webhookUrl` is shown redacted (its path carries the listener's token). */
  | {kind: 'tunnel-started'; program: string; webhookUrl: string}
  /** --approve: the emulator's page was completed without a browser. */
  | {kind: 'approval-completed'; outcome: string}
  | {kind: 'approval-opened'; url: string}
  /**
   * The browser opener failed; the person has to open the address by hand. `approveOutcomes`:
   * on the emulator, the outcomes --approve takes, to finish without a browser.
   */
  | {kind: 'approval-not-opened'; url: string; reason: string; approveOutcomes?: readonly string[]}
  /** --no-open: the address is shown for the person to open. */
  | {kind: 'approval-shown'; url: string}
  /** The flow waits for the person to finish the approval page, at most `remainingMs`. */
  | {kind: 'waiting'; for: 'redirect'; remainingMs: number}
  | {kind: 'redirect-received'; transactionId?: string}
  | {kind: 'redirect-error'; error: string}
  /**
   * No redirect came: the transaction ended without one (`status`: the page was completed by
   * another client, the redirect going there) or the time ran out.
   */
  | {kind: 'redirect-missing'; status?: string; waitedMs: number}
  /** The flow requested the approval page's redirect itself (--approve) and that failed. */
  | {kind: 'redirect-delivery-failed'; message: string}
  /**
   * `statusFrom: 'service'`: the body carried no status, `status` was read from the service when
   * it came; `movedOn`: the service had reached it after the webhook came. `duplicate`: the same
   * delivery came before.
   */
  | {kind: 'webhook-received'; type: string; status?: string; statusFrom?: 'service'; movedOn?: boolean; duplicate: boolean}
  /** The listener refused a request (wrong path, token or transaction id). */
  | {kind: 'request-refused'; method: string; path: string; status: number; reason: string}
  /** A change of status while the flow reads it from the service. */
  | {kind: 'status-read'; status: string}
  | {kind: 'status-read-failed'; message: string}
  /** The flow's conclusion, from the service. */
  | {
      kind: 'verdict'
      status: string
      statusReason: string
      conclusive: boolean
      final: boolean
      success: boolean
      durationMs: number
      waitTimeoutMs: number
    }

/** An event with the time it happened, counted from the start of the flow. */
export type FlowEvent = FlowEventBody & {elapsedMs: number}

export type FlowEventKind = FlowEvent['kind']

/** Where a flow's events go (a renderer, a collector, both). */
export type FlowEventSink = (event: FlowEvent) => void
