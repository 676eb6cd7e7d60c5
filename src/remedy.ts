/**
 * What would help after a failure, as data: the core says which remedy applies, and only the CLI
 * layer (output/remedy.ts) says it in words, naming the command as the user typed it (`paytx`,
 * `npx paytx`, `./bin/run.js`). Under --json an error carries its remedies as these objects.
 */

/** Which of the profile's settings to look at, and why. */
export type ProfileConcern =
  /** 401/403: the key, or the key's environment. */
  | 'api-key'
  /** 404: the id, or an address that is not the service's. */
  | 'id-and-base-url'
  /** An answer paytx cannot read. */
  | 'base-url'
  /** An HTML page or other text where JSON was due. */
  | 'not-a-web-server'
  /** A 2xx body of the wrong shape. */
  | 'not-another-server'
  /** A certificate paytx does not trust. */
  | 'certificate-host'
  /** TLS spoken to a plain http:// server. */
  | 'scheme'
  /** Any other network failure. */
  | 'addresses'
  /** --approve against a service that has no emulator pages. */
  | 'emulator-only'

/** Why a transaction is worth looking up before anything else is done. */
export type LookUpSituation =
  /** A 5xx to a POST: the request may have been processed. */
  | 'service-failed'
  /** The connection broke after a POST was sent: it was not sent again. */
  | 'may-have-reached'
  /** Ctrl-C after the transaction was started. */
  | 'interrupted'
  /** A later step failed after the transaction was started. */
  | 'started'

/** Why the emulator is the thing to start. */
export type EmulatorSituation =
  /** Nothing listens at a loopback address. */
  | 'nothing-listens'
  /** The address answers, but not as the emulator does. */
  | 'not-an-emulator'
  /** Fault rules live in a running emulator, and none answered at the profile's address. */
  | 'fault-rules'
  /** A command for the local emulator only, run with another profile. */
  | 'local-only'

export type Remedy =
  | {kind: 'start-emulator'; situation?: EmulatorSituation; profile?: string; baseUrl?: string}
  /** An emulator command named an id its store does not have. */
  | {kind: 'check-transaction-id'}
  | {kind: 'check-profile'; concern: ProfileConcern}
  /** A redirect: the base URL is not the API's own address. */
  | {kind: 'fix-base-url'}
  | {kind: 'look-up-transaction'; situation: LookUpSituation; transactionId?: string}
  | {kind: 'set-api-key'; profile: string}
  /** Settings a profile lacks, by the flags of `profile add` that set them, and the variable that sets one for a run. */
  | {kind: 'set-profile-values'; profile: string; flags: string[]; variable?: string}
  | {kind: 'add-profile'; profile: string}
  | {kind: 'fix-profile-file'; path: string}
  | {kind: 'pipe-values'; flags: string[]}
  | {kind: 'pass-scenario-file'}
  | {kind: 'pass-saved-webhooks'}
  | {kind: 'fix-customer-data'}
  /** A command's flags, each with what it is for: its help. */
  | {kind: 'see-help'; command: string; arguments?: boolean}
