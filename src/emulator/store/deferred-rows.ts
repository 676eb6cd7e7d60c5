/**
 * Rows held back inside a write and sent to SQLite many per statement: a statement costs some 4 us
 * however little it does, and a catch-up of 100,000 status moves would otherwise make 300,000 of
 * them (a transaction's update, its status change, its webhook). The store writes what is held
 * before it reads anything back, and before the write commits.
 */

/** A statement for many rows: `sql(rows)` with `rows` the comma-separated `row` placeholders. */
export class ManyRowsStatement {
  private readonly texts = new Map<number, string>()

  constructor(
    private readonly sql: (rows: string) => string,
    private readonly row: string,
    /** Parameters a row takes. */
    readonly columns: number,
  ) {}

  /** The statement's text for `count` rows (made once per count). */
  text(count: number): string {
    let text = this.texts.get(count)
    if (text === undefined) {
      text = this.sql(Array.from({length: count}, () => this.row).join(', '))
      this.texts.set(count, text)
    }
    return text
  }
}

/** Rows per statement at most: SQLite takes up to 32,766 parameters; this keeps each statement small. */
const ROWS_PER_STATEMENT = 64

export class DeferredRows {
  private readonly held = new Map<ManyRowsStatement, unknown[]>()

  add(statement: ManyRowsStatement, params: unknown[]): void {
    const list = this.held.get(statement)
    if (list) list.push(...params)
    else this.held.set(statement, [...params])
  }

  /** Runs what is held, each statement's rows in the order they were added; holds nothing after. */
  flush(run: (sql: string, params: unknown[]) => void): void {
    if (this.held.size === 0) return
    const held = [...this.held]
    this.held.clear()
    for (const [statement, params] of held) {
      const step = ROWS_PER_STATEMENT * statement.columns
      for (let start = 0; start < params.length; start += step) {
        const chunk = params.slice(start, start + step)
        run(statement.text(chunk.length / statement.columns), chunk)
      }
    }
  }
}
