/** What paytx and its keychain process (keychain-process.ts) say to each other. */

/** The service name of every paytx entry in the OS keychain; the account names the profile and key. */
export const KEYCHAIN_SERVICE = 'paytx'

export type KeychainOp = {op: 'get'; account: string} | {op: 'set'; account: string; value: string} | {op: 'delete'; account: string}

/** `value` is undefined when the keychain has no such entry; `deleted` false when there was none to delete. */
export type KeychainAnswer = {ok: true; value?: string; deleted?: boolean} | {ok: false; reason: string}
