import { PtcError, redactSecrets, secretEnvValues } from '../tools/index.js';

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

/**
 * Text someone else wrote (a tools module's error, a stack) as the CLI may print it: what looks
 * like a credential, and the values of this environment's secret variables (`*_TOKEN`,
 * `*_API_KEY`, `*_PASSWORD`, …), replaced by `…` (tools/redact-secrets.ts).
 */
export function withoutSecrets(text: string): string {
  return redactSecrets(text, { values: secretEnvValues(process.env) });
}
