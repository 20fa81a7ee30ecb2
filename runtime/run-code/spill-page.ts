/**
 * One page of a spill, as `spill_read` answers it. Paging is in UTF-8 bytes of the spilled JSON
 * text, the unit of the handle's `bytes` and of the cap (`maxOutputBytes`), so a model can do the
 * arithmetic from what it was shown.
 *
 * - A page never splits a character: an offset inside one starts at that character's first byte
 *   (nothing is skipped), and a page ends before a character that would not fit.
 * - The answer as the model reads it (a header line, then the text) stays within `maxBytes`: the
 *   page is cut shorter when the header, or the escapes the text is shown with, would pass it.
 *   The one exception is a cap too small to hold the header and one character: then the page is
 *   that one character, so paging always moves on.
 * - The text is shown on one line: line breaks and other control characters (which valid JSON
 *   text holds only as U+2028/U+2029 or C1 characters inside strings) are shown as `\uXXXX`
 *   escapes, which keeps JSON the same JSON and lets nothing in a spill forge a header line.
 */
import { oneLine } from './render.js';

/** A page of a spill: the value of a `spill_read` call. */
export interface SpillPage {
  /** The spill's id. */
  readonly id: string;
  /** Bytes of the whole spilled JSON text. */
  readonly bytes: number;
  /** Byte offset where `text` starts. */
  readonly offset: number;
  /** Byte offset just after `text`: pass it as `offset` to read on. */
  readonly nextOffset: number;
  /** Bytes after this page (0: this is the end). */
  readonly remaining: number;
  /** This page of the JSON text. */
  readonly text: string;
}

/** What one page is cut from. */
export interface SpillPageRequest {
  readonly id: string;
  /** The spill as UTF-8. */
  readonly utf8: Buffer;
  /** Where to start (a byte offset, at most `utf8.length`). */
  readonly offset: number;
  /** Most bytes of the spill to return. */
  readonly limit: number;
  /** Most bytes of the rendered answer. */
  readonly maxBytes: number;
  /** When `utf8` is a window of the spill (read by range): the byte where it starts (`offset` is then within the window). */
  readonly base?: number;
  /** When `utf8` is a window: bytes of the whole spill. */
  readonly total?: number;
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/** The start of the character at or before byte `at`. */
function charStart(utf8: Buffer, at: number): number {
  let i = at;
  while (i > 0 && i < utf8.length && isContinuation(utf8[i]!)) i--;
  return i;
}

/** The end of the character that starts at `at`. */
function charEnd(utf8: Buffer, at: number): number {
  let i = at + 1;
  while (i < utf8.length && isContinuation(utf8[i]!)) i++;
  return i;
}

/** Cuts one page (see the file note); `offset` must be within the text. */
export function spillPage(request: SpillPageRequest): SpillPage {
  const { id, utf8, limit, maxBytes } = request;
  const base = request.base ?? 0;
  const total = request.total ?? utf8.length;
  const from = charStart(utf8, request.offset);
  const pageOf = (end: number): SpillPage => ({ id, bytes: total, offset: base + from, nextOffset: base + end, remaining: total - base - end, text: utf8.toString('utf8', from, end) });
  const oneChar = from < utf8.length ? charEnd(utf8, from) : from;
  let end = Math.max(oneChar, charStart(utf8, Math.min(utf8.length, from + limit)));
  for (;;) {
    const page = pageOf(end);
    const excess = Buffer.byteLength(renderSpillPage(page), 'utf8') - maxBytes;
    // Each byte taken off the end takes at least one byte off the shown text: one cut by the
    // excess fits, unless the header grew a digit (`remaining`), which the next turn takes off.
    if (excess <= 0 || end === oneChar) return page;
    end = Math.max(oneChar, charStart(utf8, end - excess));
  }
}

// What valid JSON cannot hold raw inside a string, plus the line breaks it may hold raw.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g;

/** The text of a page on one line, every control character but tab as a `\uXXXX` escape. */
export function shownPageText(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** What the model reads of a page: where it is in the spill, how to read on, then the text. */
export function renderSpillPage(page: SpillPage): string {
  const where = `spill ${oneLine(page.id)}, bytes ${page.offset}..${page.nextOffset} of ${page.bytes}`;
  const next = page.remaining > 0 ? `; next page: offset ${page.nextOffset} (${page.remaining} bytes left)` : '; the end';
  return `${where}${next}\n${shownPageText(page.text)}`;
}
