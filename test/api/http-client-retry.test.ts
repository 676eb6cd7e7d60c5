import {describe, expect, it} from 'vitest'

import {type AttemptOutcome, type HttpMethod, type RetryDecision, type RetryPolicy, shouldRetry} from '../../src/api/http-client.js'

// random() = 0.5 makes the jitter factor exactly 1: the back-off is 100, 200, 400 ms.
const policy: RetryPolicy = {maxTries: 4, backoffBaseMs: 100, random: () => 0.5}

const connectRefused: AttemptOutcome = {kind: 'failed', beforeSending: true}
const resetAfterSending: AttemptOutcome = {kind: 'failed', beforeSending: false}
const destroyed: AttemptOutcome = {kind: 'failed', beforeSending: true, clientDestroyed: true}
const answered = (status: number, retryAfterMs?: number): AttemptOutcome => ({kind: 'answered', status, retryAfterMs})

const no: RetryDecision = {retry: false}
const after = (delayMs: number): RetryDecision => ({retry: true, delayMs})

describe('shouldRetry', () => {
  it.each<[string, HttpMethod, AttemptOutcome, number, RetryDecision]>([
    ['GET: connection refused', 'GET', connectRefused, 1, after(100)],
    ['GET: reset after sending (reads are safe to repeat)', 'GET', resetAfterSending, 1, after(100)],
    ['GET: back-off doubles', 'GET', resetAfterSending, 2, after(200)],
    ['GET: back-off doubles again', 'GET', resetAfterSending, 3, after(400)],
    ['GET: no tries left', 'GET', resetAfterSending, 4, no],
    ['GET: client destroyed (paytx is stopping)', 'GET', destroyed, 1, no],
    ['GET: 500', 'GET', answered(500), 1, after(100)],
    ['GET: 503 on the third try', 'GET', answered(503), 3, after(400)],
    ['GET: 502 with no tries left', 'GET', answered(502), 4, no],
    ['GET: 429 without Retry-After backs off', 'GET', answered(429), 2, after(200)],
    ['GET: 429 with Retry-After waits for it', 'GET', answered(429, 2_000), 1, after(2_000)],
    ['GET: 503 with Retry-After 0', 'GET', answered(503, 0), 1, after(0)],
    ['GET: a Retry-After of an hour is capped', 'GET', answered(429, 3_600_000), 1, after(30_000)],
    ['GET: 200', 'GET', answered(200), 1, no],
    ['GET: 404', 'GET', answered(404), 1, no],
    ['GET: 401', 'GET', answered(401), 1, no],
    ['POST: connection refused (nothing sent)', 'POST', connectRefused, 1, after(100)],
    ['POST: connection refused, back-off doubles', 'POST', connectRefused, 2, after(200)],
    ['POST: connection refused, no tries left', 'POST', connectRefused, 4, no],
    ['POST: reset after sending (may have reached the service)', 'POST', resetAfterSending, 1, no],
    ['POST: client destroyed', 'POST', destroyed, 1, no],
    ['POST: 500 (may have been processed)', 'POST', answered(500), 1, no],
    ['POST: 503 with Retry-After', 'POST', answered(503, 1_000), 1, no],
    ['POST: 429', 'POST', answered(429, 1_000), 1, no],
    ['POST: 201', 'POST', answered(201), 1, no],
  ])('%s', (_name, method, outcome, attempt, expected) => {
    expect(shouldRetry(method, outcome, attempt, policy)).toEqual(expected)
  })

  it('spreads the back-off with the random factor (0.5x to 1.5x)', () => {
    expect(shouldRetry('GET', answered(500), 2, {...policy, random: () => 0})).toEqual(after(100))
    expect(shouldRetry('GET', answered(500), 2, {...policy, random: () => 0.999})).toEqual(after(300))
  })

  it('never retries with a single try allowed', () => {
    expect(shouldRetry('GET', connectRefused, 1, {...policy, maxTries: 1})).toEqual(no)
  })
})
