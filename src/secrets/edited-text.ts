/**
 * A text rebuilt with some of its spans replaced (card numbers by their masks, field values by
 * theirs), from the left, in one pass: the text between two replacements is copied once. Begun
 * `noting`, it only notes the replacements, for another pass to make them with its own (the card
 * numbers of a text, that the field net reads through: src/secrets/fields-in-text.ts).
 *
 * It is built by joining strings with `+`; a text found dense with replacements is built in
 * UTF-16 code units instead (`toUnits`).
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
  private readonly notesRoom = new Room()
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
  /** Where the text was copied up to when the part being built was begun. */
  private partFrom = 0
  /**
   * Whether this text is being built in code units (`toUnits`): its own in `source`, the edited
   * text's first `unitsWritten` in `units`. Both keep their room between texts, as the notes do.
   */
  private buildsUnits = false
  private unitsWritten = 0
  /** The length of the text built in code units (0 if it was not). */
  private unitsText = 0
  private readonly source = new CodeUnits()
  private readonly units = new CodeUnits()
  private readonly unitsRoomKept = new Room()

  /** Whether this text is being built in code units (`toUnits`). */
  get unitsBuilt(): boolean {
    return this.buildsUnits
  }

  /** The room kept for code units: the larger of the text's own and the edited text's. */
  get unitsRoom(): number {
    return Math.max(this.source.length, this.units.length)
  }

  /** Starts on `text`; one instance serves one text at a time (redaction is synchronous). */
  begin(text: string, noting = false): this {
    // A text built in code units and cut short by an exception leaves its own there.
    if (this.buildsUnits) this.source.clear(this.source.length)
    this.text = text
    this.noting = noting
    if (this.notedStarts.length > NOTES_KEPT) this.keepOrGiveBackRoom()
    // The last text's needs, if it was built in code units: its own length, and its edited text's.
    const room = this.unitsRoom
    if (room > UNITS_KEPT && this.unitsRoomKept.givenBack(Math.max(this.unitsText, this.unitsWritten), room)) {
      this.source.giveBack()
      this.units.giveBack()
    }
    this.noted = 0
    this.copied = 0
    this.partFrom = 0
    this.replacementsInPart = 0
    this.buildsUnits = false
    this.unitsWritten = this.unitsText = 0
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
    if (this.notesRoom.givenBack(this.noted, this.notedStarts.length)) this.notedStarts.length = this.notedEnds.length = this.notedReplacements.length = 0
  }

  /** Replaces the text from `start` to `end` (both at or after the last replacement's end) by `replacement`. */
  replace(start: number, end: number, replacement: string): void {
    if (this.noting) {
      this.notedStarts[this.noted] = start
      this.notedEnds[this.noted] = end
      this.notedReplacements[this.noted++] = replacement
      return
    }
    if (this.buildsUnits) {
      this.writeUnits(start, replacement)
      this.copied = end
      return
    }
    this.part = start > this.copied ? this.part + this.text.slice(this.copied, start) + replacement : this.part + replacement
    this.copied = end
    if (++this.replacementsInPart === REPLACEMENTS_PER_PART) this.closePart()
  }

  /**
   * A part is made flat every few hundred replacements, so that its tree dies young: kept until
   * the end, 10 MB of form fields was a million nodes that every collection of the young
   * generation copied. A part whose replacements are fewer than 32 characters apart turns the
   * text to code units (`toUnits`).
   */
  private closePart(): void {
    if (BUILDS_UNITS && this.copied - this.partFrom < REPLACEMENTS_PER_PART * DENSE_SPAN) {
      this.toUnits()
      return
    }
    this.parts.push(flat(this.part))
    this.part = ''
    this.replacementsInPart = 0
    this.partFrom = this.copied
  }

  /**
   * Builds the rest of the text in code units: the text's own, copied once into `source`, and the
   * edited text's, written into `units` and made a string at the end. Each replacement joined by
   * `+` costs two string nodes and a cut of the text, every node is read again to make the parts
   * flat and once more to join them; a text dense with replacements spends more on that than on
   * finding them. A megabyte of form fields (72,000 replacements) took 12.2 ms to redact against
   * 14.1 (Node 24) and 13.3 against 15.9 (Node 20), in one process with the bench's other shapes;
   * a text with a few replacements a kilobyte is left to `+`, whose cuts of long spans copy nothing
   * (1 MB of JSON nested 100 deep, two card numbers a chain: 8.9 ms, 10.0 in code units, Node 20).
   */
  private toUnits(): void {
    const {text} = this
    this.unitsText = this.source.write(text, 0)
    let written = 0
    for (const part of this.parts) written = this.units.write(part, written)
    this.unitsWritten = this.units.write(this.part, written)
    this.parts.length = 0
    this.part = ''
    this.buildsUnits = true
  }

  /** Writes the text from where it is copied up to to `start`, then `replacement`, in code units. */
  private writeUnits(start: number, replacement: string): void {
    let at = this.unitsWritten
    const units = this.units.room(at + (start - this.copied) + replacement.length, at)
    at = copyUnits(this.source.units, this.copied, start, units, at)
    for (let index = 0; index < replacement.length; index++) units[at++] = replacement.charCodeAt(index)
    this.unitsWritten = at
  }

  /** The text with its replacements, and the instance ready for the next. */
  finish(): string {
    const {text, parts} = this
    if (this.buildsUnits) {
      this.writeUnits(text.length, '')
      this.text = ''
      this.buildsUnits = false
      // The text's card numbers and CVVs are not kept in the room for the next text.
      this.source.clear(text.length)
      return this.units.read(this.unitsWritten)
    }
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
/** Replacements fewer characters apart than this, on average over a part, make a text dense. */
const DENSE_SPAN = 32
/** Code units kept whatever the texts since (2 MB each for the text's own and the edited text's). */
const UNITS_KEPT = 1 << 20
/**
 * Code units are written into a buffer read as UTF-16LE: on a big-endian machine, a `Uint16Array`
 * holds them the other way round, and texts are built by `+` alone.
 */
const BUILDS_UNITS = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1

/**
 * Room that a few large texts needed, given back once 32 texts in a row have used less than a
 * quarter of it, and kept while texts that large come now and then.
 */
class Room {
  private texts = 0

  /** Whether the room is to be given back, `used` of its `size` having served the last text. */
  givenBack(used: number, size: number): boolean {
    this.texts = used * 4 < size ? this.texts + 1 : 0
    if (this.texts < 32) return false
    this.texts = 0
    return true
  }
}

/** UTF-16 code units in a buffer that grows, and the bytes under them. */
class CodeUnits {
  units = new Uint16Array(0)
  private bytes = Buffer.alloc(0)

  get length(): number {
    return this.units.length
  }

  /** The units, with room for `count`, the first `kept` of them kept if it grows. */
  room(count: number, kept: number): Uint16Array {
    if (count <= this.units.length) return this.units
    const units = new Uint16Array(Math.max(count, this.units.length * 2))
    units.set(this.units.subarray(0, kept))
    this.units = units
    this.bytes = Buffer.from(units.buffer, units.byteOffset, units.byteLength)
    return units
  }

  /** Writes `text`'s code units from the `at` th on, and says where they end. */
  write(text: string, at: number): number {
    this.room(at + text.length, at)
    return at + this.bytes.write(text, at * 2, 'utf16le') / 2
  }

  /** The first `count` units as a string. */
  read(count: number): string {
    return this.bytes.toString('utf16le', 0, count * 2)
  }

  /** Sets the first `count` units to 0. */
  clear(count: number): void {
    this.units.fill(0, 0, count)
  }

  giveBack(): void {
    this.units = new Uint16Array(0)
    this.bytes = Buffer.alloc(0)
  }
}

/**
 * Copies `source`'s units from `start` to `end` into `units` from `at`, and says where they end
 * there: one by one, as most spans between two replacements are a few characters long, and a long
 * one at once.
 */
function copyUnits(source: Uint16Array, start: number, end: number, units: Uint16Array, at: number): number {
  if (end - start > 64) {
    units.set(source.subarray(start, end), at)
    return at + (end - start)
  }
  for (let index = start; index < end; index++) units[at++] = source[index]
  return at
}

/**
 * `text`, flat: reading a character of a string kept as a tree makes V8 copy the tree out into
 * one. The character read is kept, or the compiler would drop the read as unused.
 */
function flat(text: string): string {
  lastRead = text.charCodeAt(0)
  return text
}

let lastRead = 0
