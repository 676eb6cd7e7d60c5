import {describe, expect, it} from 'vitest'

import {jsonNestingDepth} from '../../src/http/json-nesting.js'

describe('jsonNestingDepth', () => {
  it.each([
    ['a number', '42', 0],
    ['a flat object', '{"id":"tx-1","status":"INITIATED"}', 1],
    ['objects and lists', '{"a":[{"b":[1,2]},{"c":{}}]}', 4],
    ['brackets inside strings', '{"note":"[[[{{{ \\" ]]] }}}"}', 1],
    ['an escaped backslash before a closing quote', '{"path":"C:\\\\","x":[[1]]}', 3],
    ['5,000 deep', `${'['.repeat(5_000)}${']'.repeat(5_000)}`, 5_000],
    ['broken text', '{"a":[[', 3],
  ])('%s', (_label, text, depth) => {
    expect(jsonNestingDepth(text)).toBe(depth)
  })
})
