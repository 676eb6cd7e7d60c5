/**
 * A text rebuilt with some of its spans replaced (card numbers by their masks, field values by
 * theirs), from the left, in one pass: the text between two replacements is copied once.
 */
export class EditedText {
  /** The text being edited. */
  text = ''
  /** Where the text is copied up to. */
  private copied = 0
  private pieces: string[] = []
  private chunks: string[] = []

  /** Starts on `text`; one instance serves one text at a time (redaction is synchronous). */
  begin(text: string): this {
    this.text = text
    this.copied = 0
    // Left empty by `finish`, unless a redaction was cut short by an exception (setting a length
    // costs a call into the engine, and this runs for every string of a body).
    if (this.pieces.length > 0 || this.chunks.length > 0) this.pieces.length = this.chunks.length = 0
    return this
  }

  /** Replaces the text from `start` to `end` (both at or after the last replacement's end) by `replacement`. */
  replace(start: number, end: number, replacement: string): void {
    const {pieces} = this
    if (start > this.copied) pieces.push(this.text.slice(this.copied, start))
    pieces.push(replacement)
    this.copied = end
    // Joined a few thousand at a time, so that the pieces die young: kept all until the end (a
    // megabyte of form fields is 70,000 of them), they were copied by every collection of the
    // young generation, and joining 10 MB of them took 20 times as long as 1 MB on Node 20.
    if (pieces.length >= PIECES_PER_CHUNK) {
      this.chunks.push(pieces.join(''))
      pieces.length = 0
    }
  }

  /** The text with its replacements, and the instance ready for the next. */
  finish(): string {
    const {text, pieces, chunks} = this
    this.text = ''
    if (this.copied === 0) return text
    // A value that is one card number (a list of them, say) is its mask, without a join.
    if (this.copied === text.length && chunks.length === 0 && pieces.length === 1) return pieces.pop()!
    if (this.copied < text.length) pieces.push(text.slice(this.copied))
    chunks.push(pieces.join(''))
    pieces.length = 0
    const edited = chunks.length === 1 ? chunks[0] : chunks.join('')
    chunks.length = 0
    return edited
  }
}

const PIECES_PER_CHUNK = 2048
