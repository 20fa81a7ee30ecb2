/**
 * Capabilities out of a trace. A trace is read by people who must not be able to act as the run:
 * - a live run token (a PTC origin's `token`) is replaced by `tokenId`, its one-way digest, which
 *   still links a run's children (done on the event, before it is serialized);
 * - a durable run's resume token, wherever it sits (run_code's `value.suspended.resumeToken`,
 *   the same value quoted as JSON in the result's content text, an event that carries one by
 *   mistake), is found by its name (`resumeToken`, quoted or escaped, followed by `:` or `=`)
 *   and every occurrence of its value in the line, and in every later line, is replaced by
 *   `[resume token <digest>]`. A token that never appears beside its name is not recognized:
 *   emitters must not put one in an event without it.
 *
 * The replacement is made before the line is hashed, so the chain covers the line as written.
 */
import { tokenIdOf } from './events.js';

/** `resumeToken` as a key or an assignment, then its value (quotes and escaped quotes allowed around both). */
const NAMED_RESUME_TOKEN = /resumeToken(?:\\*["'])?\s*[:=]\s*(?:\\*["'])?([^\s"'\\,;}\][]{8,})/g;

/** Resume tokens remembered per writer, so a later line that quotes one is redacted too. */
const REMEMBERED = 64;

/** Replaces resume tokens in serialized trace lines; remembers the last few it saw. */
export function createResumeTokenRedactor(): (line: string) => string {
  const seen: string[] = [];
  return (line) => {
    if (line.includes('resumeToken')) {
      for (const m of line.matchAll(NAMED_RESUME_TOKEN)) {
        const token = m[1]!;
        if (seen.includes(token)) continue;
        if (seen.length >= REMEMBERED) seen.shift();
        seen.push(token);
      }
    }
    for (const token of seen) if (line.includes(token)) line = line.split(token).join(`[resume token ${tokenIdOf(token)}]`);
    return line;
  };
}

/** One text with every named resume token (and its other occurrences in the text) replaced; for readers of files no writer redacted. */
export function redactResumeTokens(text: string): string {
  return text.includes('resumeToken') ? createResumeTokenRedactor()(text) : text;
}
