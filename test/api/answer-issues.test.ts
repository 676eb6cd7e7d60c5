/**
 * What paytx cannot use in a 2xx answer (answerIssues), field by field: the messages users see.
 */
import {describe, expect, it} from 'vitest'

import {answerIssues} from '../../src/api/answers.js'

describe('answerIssues', () => {
  it('takes a usable answer as it is, extra fields included', () => {
    expect(answerIssues('transaction', {id: 'tx-1', status: 'SETTLEMENT_COMPLETED', amount: 1499, details: {}, brand_new: {a: 1}})).toEqual([])
    expect(answerIssues('transaction', {_id: 'tx-1', status: 'PENDING', amount: null, details: null, status_reason: null})).toEqual([])
    expect(answerIssues('checkoutsuccess', {status: 'OK', success: false})).toEqual([])
    expect(answerIssues('card', {token: 'tok_1'})).toEqual([])
  })

  it('names each field it cannot use, and the id the answer lacks first', () => {
    expect(answerIssues('transaction', {foo: 1})).toEqual([
      {path: 'id', message: 'is missing (a string; id, _id accepted)'},
      {path: 'status', message: 'is missing (a string)'},
    ])
    expect(answerIssues('transaction', {id: 'tx-1', status: '', amount: true, details: {approval_url: 5}, status_reason: 7})).toEqual([
      {path: 'status', message: 'must not be empty'},
      {path: 'status_reason', message: 'must be a string'},
      {path: 'amount', message: 'must be a string of minor units'},
      {path: 'details.approval_url', message: 'must be a string'},
    ])
    expect(answerIssues('transaction', {id: 'tx-1', status: 5, details: 'x'})).toEqual([
      {path: 'status', message: 'must be a string'},
      {path: 'details', message: 'must be an object'},
    ])
    expect(answerIssues('checkoutsuccess', {status: null, success: 'yes'})).toEqual([
      {path: 'status', message: 'must be a string'},
      {path: 'success', message: 'must be true or false'},
    ])
    expect(answerIssues('customer', {id: ''})).toEqual([{path: 'id', message: 'is missing (a string; id, _id accepted)'}])
  })

  it('reports an answer that is not an object as a whole', () => {
    for (const body of [null, [], 'text', 5]) expect(answerIssues('checkoutsuccess', body), JSON.stringify(body)).toEqual([{path: '(body)', message: expect.any(String)}])
    expect(answerIssues('transaction', [{id: 'tx-1', status: 'PENDING'}])).toEqual([{path: '(body)', message: 'must be a JSON object, not an array'}])
    expect(answerIssues('transaction', null)).toEqual([{path: '(body)', message: 'must be a JSON object, not null'}])
  })
})
