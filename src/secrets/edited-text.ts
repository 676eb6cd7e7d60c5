/**
 * A text rebuilt with some of its spans replaced (card numbers by their masks, field values by
 * theirs), from the left, in one pass: the text between two replacements is copied once. Begun
 * `noting`, it only notes the replacements, for another pass to make them with its own (the card
 * numbers of a text, that the field net reads through: src/secrets/fields-in-text.ts).
 */
export class EditedText {
  /** The text being edited. */
  text = ''
  /**
   * The replacements noted since `begin`, in order: where each starts and ends in the text, and
   * what replaces it. Kept with their room between texts (a megabyte of form fields is 36,000
   * card numbers; see `keepOrGiveBackRoom`); only the first `noted` are this text's.
   */
  readonly notedStarts: number[] = []
  readonly notedEnds: number[] = []
  readonly notedReplacements: string[] = []
  noted = 0
  private noting = false
  /** Texts begun in a row while the lists' room was more than four times the notes of each. */
  private texts = 0
  /** Where the text is copied up to. */
  private copied = 0
  /**
   * The edited text since the last part was closed, joined by `+`: V8 keeps such a string as a
   * tree of its pieces and copies them out once, when it is read. That costs less than an array
   * of pieces and a join (a megabyte of form fields is 36,000 replacements for each net).
   */
  private part = ''
  private replacementsInPart = 0
  /** The parts closed, each made flat. */
  private parts: string[] = []

  /** Starts on `text`; one instance serves one text at a time (redaction is synchronous). */
  begin(text: string, noting = false): this {
    this.text = text
    this.noting = noting
    if (this.notedStarts.length > NOTES_KEPT) this.keepOrGiveBackRoom()
    this.noted = 0
    this.copied = 0
    this.replacementsInPart = 0
    // Left empty by `finish`, unless a redaction was cut short by an exception (setting a length
    // costs a call into the engine, and this runs for every string of a body).
    if (this.part !== '' || this.parts.length > 0) {
      this.part = ''
      this.parts.length = 0
    }
    return this
  }

  /**
   * Room for more than 65,536 notes (10 MB of form fields leaves 8 MB of lists) is given back once
   * 32 texts in a row have needed less than a quarter of it (the texts begun since, `noted` being
   * the last one's notes), and kept while texts that large come now and then: emptied, the lists
   * grew again from nothing, and a list of card numbers took 9.6-9.8 ms at 1 MB and 111-115 at 10
   * MB redacted in turn, against 8.0-8.2 and 86-89 with the room kept (Node 20).
   */
  private keepOrGiveBackRoom(): void {
    this.texts = this.noted * 4 < this.notedStarts.length ? this.texts + 1 : 0
    if (this.texts < 32) return
    this.notedStarts.length = this.notedEnds.length = this.notedReplacements.length = 0
    this.texts = 0
  }

  /** Replaces the text from `start` to `end` (both at or after the last replacement's end) by `replacement`. */
  replace(start: number, end: number, replacement: string): void {
    if (this.noting) {
      this.notedStarts[this.noted] = start
      this.notedEnds[this.noted] = end
      this.notedReplacements[this.noted++] = replacement
      return
    }
    this.part = start > this.copied ? this.part + this.text.slice(this.copied, start) + replacement : this.part + replacement
    this.copied = end
    // A part is made flat every few hundred replacements, so that its tree dies young: kept
    // until the end, 10 MB of form fields was a million nodes that every collection of the young
    // generation copied.
    if (++this.replacementsInPart === REPLACEMENTS_PER_PART) {
      this.parts.push(flat(this.part))
      this.part = ''
      this.replacementsInPart = 0
    }
  }

  /** The text with its replacements, and the instance ready for the next. */
  finish(): string {
    const {text, parts} = this
    let last = this.part
    this.text = this.part = ''
    if (this.copied === 0) return text
    if (this.copied < text.length) last += text.slice(this.copied)
    if (parts.length === 0) {
      if (last.length < COPIED_OUT_FROM) return last
      // A string made by `+` is reached through its tree even once flattened, until a collection
      // shortcuts it, and reading through that cost the next net half as much time again: a long
      // text is copied out into a string of its own (joining two pieces of it does that).
      const middle = last.length >> 1
      parts.push(last.slice(0, middle), last.slice(middle))
      const edited = parts.join('')
      parts.length = 0
      return edited
    }
    parts.push(last)
    const edited = parts.join('')
    parts.length = 0
    return edited
  }
}

const REPLACEMENTS_PER_PART = 256
const NOTES_KEPT = 65_536
const COPIED_OUT_FROM = 4096

/**
 * `text`, flat: reading a character of a string kept as a tree makes V8 copy the tree out into
 * one. The character read is kept, or the compiler would drop the read as unused.
 */
function flat(text: string): string {
  lastRead = text.charCodeAt(0)
  return text
}

let lastRead = 0
