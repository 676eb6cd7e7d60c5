import {describe, expect, it} from 'vitest'

import {ALIGNED_ROWS_HELD, type TableColumn, type TableFormat, createTableWriter, renderTable, table, tableFormatFor, terminalWidth, wrapText} from '../../src/output/table.js'

const COLUMNS: TableColumn[] = [{header: 'NAME'}, {header: 'NOTE', shrink: 'wrap', minWidth: 8}, {header: 'REF', shrink: 'truncate', minWidth: 6}]
const ROWS = [
  ['alpha', 'a short note', 'r-1'],
  ['beta', 'a much longer note that will not fit in a narrow terminal at all', 'reference-number-0042'],
]

describe('renderTable', () => {
  it('aligns columns and trims the last one when there is room', () => {
    expect(renderTable(COLUMNS, ROWS.slice(0, 1), {format: 'aligned', width: 80}).split('\n')).toEqual(['NAME   NOTE          REF', 'alpha  a short note  r-1'])
  })

  it('fits a narrow terminal: wraps the wrap column, cuts the truncate column', () => {
    const lines = renderTable(COLUMNS, ROWS, {format: 'aligned', width: 30}).split('\n')
    for (const line of lines) expect(line.length).toBeLessThan(30)
    expect(lines[0]).toMatch(/^NAME\s+NOTE\s+REF$/)
    expect(lines.join('\n')).toContain('…')
    const noteAt = lines[0].indexOf('NOTE')
    const note = lines.slice(lines.findIndex((line) => line.startsWith('beta'))).map((line) => line.slice(noteAt).split(/\s{2,}/)[0].trim()).join(' ')
    expect(note).toBe('a much longer note that will not fit in a narrow terminal at all')
  })

  it('shows one block per row when even shrunk columns cannot fit and blocks are asked for', () => {
    const columns: TableColumn[] = [{header: 'NAME'}, {header: 'NOTE', shrink: 'wrap', minWidth: 20}, {header: 'REF'}]
    const text = renderTable(columns, ROWS, {format: 'aligned', width: 30, tooNarrow: 'blocks'})
    expect(text.split('\n\n')).toHaveLength(2)
    expect(text.split('\n\n')[1].split('\n')).toEqual([
      'beta',
      '  note  a much longer note',
      '        that will not fit in',
      '        a narrow terminal at',
      '        all',
      '  ref   reference-number-0042',
    ])
    // Without blocks, the lines run past the edge rather than lose text.
    expect(renderTable(columns, ROWS, {format: 'aligned', width: 30})).toContain('reference-number-0042')
  })

  it('writes TSV with a header line, flattening tabs and newlines in cells', () => {
    expect(renderTable(COLUMNS, [['a\tb', 'line 1\nline 2', '']], {format: 'tsv'})).toBe('NAME\tNOTE\tREF\na b\tline 1 line 2\t')
  })

  it('writes CSV with quotes where needed', () => {
    expect(renderTable(COLUMNS, [['a,b', 'say "hi"', 'plain']], {format: 'csv'})).toBe('NAME,NOTE,REF\n"a,b","say ""hi""",plain')
  })

  it('paints cells of the aligned form only', () => {
    const paint = (_row: number, column: number, text: string) => (column === 0 ? `<${text}>` : text)
    expect(renderTable(COLUMNS, [['x', 'y', 'z']], {format: 'aligned', paint}).split('\n')[1]).toBe('<x   >  y     z')
    expect(renderTable(COLUMNS, [['x', 'y', 'z']], {format: 'tsv', paint})).not.toContain('<')
  })

  it('picks the format from the stream and the width from the terminal', () => {
    expect(tableFormatFor({isTTY: true})).toBe('aligned')
    expect(tableFormatFor({isTTY: false})).toBe('tsv')
    expect(tableFormatFor({isTTY: true}, true)).toBe('csv')
    expect(terminalWidth({columns: 0})).toBe(80)
    expect(terminalWidth({columns: 132})).toBe(132)
  })
})

describe('createTableWriter', () => {
  function written(format: TableFormat, rows: readonly (readonly string[])[], width = 80): {text: string; writes: string[]} {
    const writes: string[] = []
    const writer = createTableWriter(COLUMNS, {format, width}, (text) => writes.push(text))
    for (const row of rows) writer.row(row)
    writer.end()
    return {text: writes.join(''), writes}
  }

  it.each<TableFormat>(['aligned', 'tsv', 'csv'])('writes a short table in %s exactly as renderTable draws it', (format) => {
    for (const width of [80, 30]) expect(written(format, ROWS, width).text).toBe(`${renderTable(COLUMNS, ROWS, {format, width})}\n`)
  })

  it('writes TSV and CSV a row at a time, the header with the first row', () => {
    const writes: string[] = []
    const writer = createTableWriter(COLUMNS, {format: 'tsv'}, (text) => writes.push(text))
    writer.row(ROWS[0])
    expect(writes).toEqual(['NAME\tNOTE\tREF\n', 'alpha\ta short note\tr-1\n'])
  })

  it('writes the header of an empty table at the end', () => {
    expect(written('csv', []).text).toBe('NAME,NOTE,REF\n')
  })

  it('holds the first rows of the aligned form to fit the widths, then draws each row as it comes at those widths', () => {
    const writes: string[] = []
    const writer = createTableWriter(COLUMNS, {format: 'aligned', width: 80}, (text) => writes.push(text))
    for (let index = 0; index < ALIGNED_ROWS_HELD - 1; index++) writer.row([`n${index}`, 'note', 'r'])
    expect(writes).toEqual([])
    writer.row(['last-held', 'note', 'r'])
    expect(writes.join('').split('\n')[0]).toBe('NAME       NOTE  REF')
    const before = writes.length
    // A later, longer first cell is written whole: it pushes its row along rather than being cut.
    writer.row(['a-much-longer-name-than-any-held', 'note', 'r'])
    expect(writes.slice(before)).toEqual(['a-much-longer-name-than-any-held  note  r\n'])
  })
})

describe('table (label and value lines)', () => {
  it('gives a word too long for the value column a line of its own, whole, under its label; wraps text between words', () => {
    const id = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'
    expect(table([['Transaction', id], ['Reason', 'cancelled by the customer on the page']], {width: 40}).split('\n')).toEqual([
      'Transaction',
      `  ${id}`,
      'Reason       cancelled by the customer',
      '             on the page',
    ])
    expect(table([['Transaction', id]], {width: 80})).toBe(`Transaction  ${id}`)
    expect(table([['Transaction', id]])).toBe(`Transaction  ${id}`)
  })
})

describe('wrapText', () => {
  it.each([
    ['a bb ccc dddd', 6, ['a bb', 'ccc', 'dddd']],
    ['abcdefghij', 4, ['abcd', 'efgh', 'ij']],
    ['', 5, ['']],
  ])('%j at %i', (text, width, lines) => {
    expect(wrapText(text, width)).toEqual(lines)
  })
})

describe('fitting the terminal: priorities, dropped columns, ids never cut', () => {
  const UUID = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'
  const columns: TableColumn[] = [
    {header: 'ID', id: true},
    {header: 'STATUS'},
    {header: 'FINAL', priority: 4},
    {header: 'NOTE', shrink: 'wrap', priority: 2},
    {header: 'REF', shrink: 'truncate', priority: 3},
    {header: 'EXTRA', priority: 4},
  ]
  const rows = [
    [UUID, 'SETTLEMENT_COMPLETED', 'yes', 'paid by the customer in full', 'reference-number-0042', 'x'],
    [`${UUID.slice(0, 30)}-0002`, 'DECLINED', 'yes', 'declined', 'r-2', 'y'],
  ]
  const headerAt = (width: number) => renderTable(columns, rows, {format: 'aligned', width}).split('\n')[0].split(/\s+/)

  it('drops the highest priority number first, of equals the rightmost, and never a column of priority 1; a pipe keeps all', () => {
    // With room, every column, nothing cut.
    const wide = renderTable(columns, rows, {format: 'aligned', width: 200})
    expect(wide.split('\n')[0].split(/\s+/)).toEqual(['ID', 'STATUS', 'FINAL', 'NOTE', 'REF', 'EXTRA'])
    expect(wide).not.toContain('…')
    expect(renderTable(columns, rows, {format: 'tsv', width: 40}).split('\n')[1]).toBe(rows[0].join('\t'))
    // The narrowest forms: ID 36, STATUS 20, FINAL 5, NOTE 10, REF 10, EXTRA 5, and 2 between each: 96.
    expect(headerAt(97)).toEqual(['ID', 'STATUS', 'FINAL', 'NOTE', 'REF', 'EXTRA'])
    // EXTRA and FINAL are both 4: the rightmost goes first.
    expect(headerAt(96)).toEqual(['ID', 'STATUS', 'FINAL', 'NOTE', 'REF'])
    expect(headerAt(90)).toEqual(['ID', 'STATUS', 'FINAL', 'NOTE', 'REF'])
    expect(headerAt(89)).toEqual(['ID', 'STATUS', 'NOTE', 'REF'])
    expect(headerAt(83)).toEqual(['ID', 'STATUS', 'NOTE', 'REF'])
    expect(headerAt(82)).toEqual(['ID', 'STATUS', 'NOTE'])
    expect(headerAt(71)).toEqual(['ID', 'STATUS', 'NOTE'])
    expect(headerAt(70)).toEqual(['ID', 'STATUS'])
    // Too narrow for the id and the status: nothing more to drop, the lines run over rather than cut the id.
    const narrow = renderTable(columns, rows, {format: 'aligned', width: 40}).split('\n')
    expect(narrow[0].split(/\s+/)).toEqual(['ID', 'STATUS'])
    expect(narrow[1]).toBe(`${UUID}  SETTLEMENT_COMPLETED`)
  })

  it('never cuts an id and fits every line at 40, 60, 80, 120 and 200 columns (blocks when nothing else can go)', () => {
    for (const width of [40, 60, 80, 120, 200]) {
      const text = renderTable(columns, rows, {format: 'aligned', width, tooNarrow: 'blocks'})
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThan(width)
      for (const [id] of rows) expect(text.split('\n').some((line) => line.split(/\s+/)[0] === id)).toBe(true)
      // Blocks only where even the id and the status cannot stand side by side.
      expect(text.startsWith('ID'), `${width}`).toBe(width > 40)
    }
  })

  it('shows a row per block when even the columns that stay cannot fit, leaving out empty cells', () => {
    const text = renderTable(columns, [[UUID, 'PENDING', '', 'a note of several words', 'r-1', '']], {format: 'aligned', width: 40, tooNarrow: 'blocks'})
    expect(text.split('\n')).toEqual([UUID, '  status  PENDING', '  note    a note of several words', '  ref     r-1'])
  })

  it("gives an id that is not a block's title a line of its own when the value column is too narrow for it", () => {
    const smoke: TableColumn[] = [{header: 'CASE'}, {header: 'TRANSACTION', id: true}, {header: 'RESULT'}]
    expect(renderTable(smoke, [['approved', UUID, 'pass']], {format: 'aligned', width: 40, tooNarrow: 'blocks'}).split('\n')).toEqual([
      'approved',
      '  transaction',
      `  ${UUID}`,
      '  result       pass',
    ])
  })

  it('never gives an id column less than its width, even when asked to shrink it', () => {
    const shrinkingId: TableColumn[] = [{header: 'ID', id: true, shrink: 'truncate', minWidth: 4}, {header: 'NOTE', shrink: 'truncate', minWidth: 4}]
    const lines = renderTable(shrinkingId, [[UUID, 'a fairly long note here']], {format: 'aligned', width: 50}).split('\n')
    expect(lines[1]).toBe(`${UUID}  a fairly l…`)
  })

  it('keeps room for the longest word of a wrapping column: a word is never broken, the column goes first', () => {
    const wrapping: TableColumn[] = [{header: 'ID', id: true}, {header: 'REASON', shrink: 'wrap', priority: 2}]
    const reason = 'cancelled_by_the_customer at the bank'
    expect(renderTable(wrapping, [['tx-1', reason]], {format: 'aligned', width: 40}).split('\n')).toEqual(['ID    REASON', 'tx-1  cancelled_by_the_customer at the', '      bank'])
    expect(renderTable(wrapping, [['tx-1', reason]], {format: 'aligned', width: 30}).split('\n')).toEqual(['ID', 'tx-1'])
  })

  it('cuts an address only inside its path, never in its host or port; drops it when even that cannot fit', () => {
    const addresses: TableColumn[] = [{header: 'NAME', id: true}, {header: 'BASE URL', shrink: 'url', priority: 2}]
    const rowsOf = [['local', 'http://127.0.0.1:49152/v1/some/long/path']]
    expect(renderTable(addresses, rowsOf, {format: 'aligned', width: 36}).split('\n')[1]).toBe('local  http://127.0.0.1:49152/v1/s…')
    expect(renderTable(addresses, rowsOf, {format: 'aligned', width: 32}).split('\n')[1]).toBe('local  http://127.0.0.1:49152/…')
    expect(renderTable(addresses, rowsOf, {format: 'aligned', width: 31}).split('\n')).toEqual(['NAME', 'local'])
    // An address without a path cannot be cut at all.
    expect(renderTable(addresses, [['local', 'http://127.0.0.1:49152']], {format: 'aligned', width: 30}).split('\n')[1]).toBe('local  http://127.0.0.1:49152')
    expect(renderTable(addresses, [['local', 'http://127.0.0.1:49152']], {format: 'aligned', width: 29}).split('\n')).toEqual(['NAME', 'local'])
  })

  it('keeps the columns a painter sees at their own index when some are dropped', () => {
    const seen: number[] = []
    renderTable(columns, rows, {format: 'aligned', width: 80, paint: (_row, column, text) => (seen.push(column), text)})
    expect([...new Set(seen)]).toEqual([0, 1, 3])
  })

  it('streams blocks as renderTable draws them', () => {
    const writes: string[] = []
    const writer = createTableWriter(columns, {format: 'aligned', width: 40, tooNarrow: 'blocks'}, (text) => writes.push(text))
    for (const row of rows) writer.row(row)
    writer.end()
    expect(writes.join('')).toBe(`${renderTable(columns, rows, {format: 'aligned', width: 40, tooNarrow: 'blocks'})}\n`)
  })
})
