/**
 * A large array result's JSON text handed on while the pipeline still makes it (issue 29, docs
 * /run-code.md "Large results"), under a symbol key of `CallOptions`. Internal: only this
 * package's bridge sets it, for a call of a program in a sandbox process, whose worker parses
 * each part in the program's isolate while the host walks on; the program gets the parsed value
 * only once the pipeline's outcome is exactly the text that was streamed (the runner checks).
 *
 * The pipeline streams only a value it walks in slices whose top level is an array, and only
 * when no post-execute listener is registered: a listener may withhold or redact the value, and
 * text it withholds must not reach the sandbox process at all (an escape from the isolate would
 * read it there). What the stream gets:
 * - `items(text)`: whole top-level items, comma-separated, in order (the text between `[` and
 *   `]` is the parts joined with commas);
 * - `end(text)`: the whole JSON text, once the walk made it (the same string the program's
 *   outcome carries: `takeJsonText`), after at least one `items`.
 * - `behind()`: a promise while the consumer has not taken what it got (a pipe to the process
 *   that is full): the walk waits for it at its next pause, so the parts reach the process while
 *   the walk goes on rather than all at its end. It must settle within a bound and never reject.
 * A walk that fails after some parts calls nothing more: the call's outcome is then an error.
 */
export const RESULT_TEXT_STREAM: unique symbol = Symbol('ptc-runtime.result-text-stream');

/** See the file note. */
export interface ResultTextStream {
  items(text: string): void;
  end(text: string): void;
  behind?(): Promise<void> | undefined;
}

/** `CallOptions` with the internal stream part. */
export interface ResultTextStreamOptions {
  readonly [RESULT_TEXT_STREAM]?: ResultTextStream;
}

/** The stream part of call options, or undefined (never throws). */
export function resultTextStreamOf(options: unknown): ResultTextStream | undefined {
  try {
    const part = (options as ResultTextStreamOptions | undefined)?.[RESULT_TEXT_STREAM];
    return typeof part === 'object' && part !== null && typeof part.items === 'function' && typeof part.end === 'function' && (part.behind === undefined || typeof part.behind === 'function') ? part : undefined;
  } catch {
    return undefined;
  }
}
