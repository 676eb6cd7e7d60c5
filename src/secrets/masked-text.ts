/**
 * A text as it reads with the card numbers noted in it masked (`noteCardNumbers`): the masked
 * text, never made. The field net reads it to find the fields of a text as the card number net
 * leaves it, and writes the masks of both nets into one edited text (src/secrets/fields-in-text.ts).
 * A megabyte of form fields is 36,000 card numbers and 36,000 CVVs: the masked text, made only to
 * be read once, was a second copy of the whole text and of its first 36,000 replacements, and
 * without it that megabyte is redacted in 6 to 12% less time (Node 20; 0 to 4% on Node 24).
 * Positions in the masked text are the text's, moved by how much longer the masks before them
 * are than their card numbers (a card number's lengthening; a shift is the sum of those before a
 * point).
 */
import type {EditedText} from './edited-text.js'

export class MaskedText {
  /** The card numbers noted: how many, where each starts and ends in the text, and its mask. */
  count = 0
  starts: readonly number[] = []
  ends: readonly number[] = []
  masks: readonly string[] = []
  /** The edited text the masks are written into, begun on the text. */
  private edited!: EditedText
  /** The card numbers written so far, and the shift before the next. */
  private written = 0
  private writtenShift = 0

  /** Starts on the text of `edited`, with the card numbers noted in `noted`. */
  begin(edited: EditedText, noted: EditedText): this {
    this.edited = edited
    this.count = noted.noted
    this.starts = noted.notedStarts
    this.ends = noted.notedEnds
    this.masks = noted.notedReplacements
    this.written = this.writtenShift = 0
    return this
  }

  /** How much longer the `card` th card number's mask is than the card number. */
  lengthening(card: number): number {
    return this.masks[card].length - (this.ends[card] - this.starts[card])
  }

  /** Writes the masks of the card numbers before the `card` th (all of them at the end). */
  writeBefore(card: number): void {
    while (this.written < card) this.writeNext()
  }

  private writeNext(): void {
    const card = this.written++
    this.edited.replace(this.starts[card], this.ends[card], this.masks[card])
    this.writtenShift += this.lengthening(card)
  }

  private skipNext(): void {
    this.writtenShift += this.lengthening(this.written++)
  }

  /** Where the mask of the next card number to write starts in the masked text. */
  private nextMaskStart(): number {
    return this.starts[this.written] + this.writtenShift
  }

  /**
   * Replaces the masked text from `start` to `end` (positions in it; after every replacement
   * before) by `replacement`, after the masks before it. A mask the span covers whole goes with
   * it; one it covers in part keeps the rest of itself around the replacement.
   */
  replace(start: number, end: number, replacement: string): void {
    while (this.written < this.count && this.nextMaskStart() + this.masks[this.written].length <= start) this.writeNext()
    let textStart = start - this.writtenShift
    let before = ''
    if (this.written < this.count && this.nextMaskStart() < start) {
      textStart = this.starts[this.written]
      before = this.masks[this.written].slice(0, start - this.nextMaskStart())
    }
    while (this.written < this.count && this.nextMaskStart() + this.masks[this.written].length <= end) this.skipNext()
    let textEnd = end - this.writtenShift
    let after = ''
    if (this.written < this.count && this.nextMaskStart() < end) {
      textEnd = this.ends[this.written]
      after = this.masks[this.written].slice(end - this.nextMaskStart())
      this.skipNext()
    }
    this.edited.replace(textStart, textEnd, before + replacement + after)
  }

  /**
   * The masked text from `start` to `end` (`end` past its end allowed), read from the `card` th
   * card number, before which the shift is `shift` (any: it is read back or on from there).
   */
  slice(start: number, end: number, card: number, shift: number): string {
    const {text} = this.edited
    // Back to the first card number whose mask ends after `start`.
    while (card > 0 && this.ends[card - 1] + shift > start) shift -= this.lengthening(--card)
    let piece = ''
    let at = start
    for (; card < this.count; card++) {
      const maskStart = this.starts[card] + shift
      if (maskStart >= end) break
      const mask = this.masks[card]
      // Masks that end before `start` are passed (read from a card number before it).
      if (maskStart + mask.length > at) {
        if (at < maskStart) piece += text.slice(at - shift, this.starts[card])
        piece += mask.slice(Math.max(0, at - maskStart), Math.min(mask.length, end - maskStart))
        at = maskStart + mask.length
      }
      shift += this.lengthening(card)
    }
    if (at < end) piece += text.slice(at - shift, Math.min(text.length, end - shift))
    return piece
  }

  /**
   * Where the position `at` of the text (in no card number, or at its end; before the `card` th
   * card number, before which the shift is `shift`) is in the masked text.
   */
  maskedPosition(at: number, card: number, shift: number): number {
    while (card > 0 && this.starts[card - 1] >= at) shift -= this.lengthening(--card)
    return at + shift
  }

  /**
   * Where the position `at` of the masked text (at or after where the `card` th card number's
   * mask starts, before which the shift is `shift`) is in the text; in a mask, where its card
   * number ends.
   */
  textPosition(at: number, card: number, shift: number): number {
    for (; card < this.count; card++) {
      const maskStart = this.starts[card] + shift
      if (at <= maskStart) break
      if (at < maskStart + this.masks[card].length) return this.ends[card]
      shift += this.lengthening(card)
    }
    return at - shift
  }
}
