import { PtcError } from '../tools/index.js';

/** Documented exit codes of `ptc`. */
export const EXIT = Object.freeze({ ok: 0, failed: 1, usage: 2 });

/** A user-facing CLI failure: printed as one line on stderr, exits with `exitCode`. */
export class CliError extends PtcError {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
  }
}
