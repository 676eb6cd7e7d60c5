import {describe, expect, it} from 'vitest'

import {isContinuousIntegration, isInteractive} from '../../src/terminal/interactive.js'

const terminal = {isTTY: true}
const pipe = {isTTY: false}
const allTerminals = {stdin: terminal, stdout: terminal, stderr: terminal}
const person = {noInput: false, json: false}

describe('isInteractive: one rule for prompts, spinners and live views', () => {
  it('is true when stdin, stdout and stderr are terminals, outside CI, without --no-input or --json', () => {
    expect(isInteractive(person, {TERM: 'xterm'}, allTerminals)).toBe(true)
  })

  it.each([
    ['stdin is a pipe', person, {}, {...allTerminals, stdin: pipe}],
    ['stdout is a pipe (| jq)', person, {}, {...allTerminals, stdout: pipe}],
    ['stderr is a file', person, {}, {...allTerminals, stderr: pipe}],
    ['CI is set', person, {CI: 'true'}, allTerminals],
    ['CI names a service', person, {CI: 'woodpecker'}, allTerminals],
    ['TERM is dumb', person, {TERM: 'dumb'}, allTerminals],
    ['--no-input', {noInput: true, json: false}, {}, allTerminals],
    ['--json', {noInput: false, json: true}, {}, allTerminals],
  ])('is false when %s', (_why, options, env, streams) => {
    expect(isInteractive(options, env, streams)).toBe(false)
  })

  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['0', false],
    ['true', true],
    ['1', true],
  ])('CI=%j is CI: %s', (value, expected) => {
    expect(isContinuousIntegration(value === undefined ? {} : {CI: value})).toBe(expected)
  })
})
