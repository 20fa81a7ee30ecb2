/** Errors of the OS sandbox around sandbox processes. */
import { PtcError } from '../../tools/index.js';

/**
 * `osSandbox: 'require'` and the OS sandbox cannot be used here (no bubblewrap, not Linux, the
 * kernel refuses the namespaces, ...): nothing runs rather than running without it.
 */
export class OsSandboxUnavailableError extends PtcError {
  override readonly name = 'OsSandboxUnavailableError';
  constructor(readonly reason: string) {
    super(`osSandbox is "require", but the OS sandbox (bubblewrap) cannot be used: ${reason}. Install bubblewrap (Debian: apt-get install bubblewrap) or set osSandbox to "auto" or "off".`);
  }
}

/** An OS sandbox option has a value it cannot have, or one that does not apply. */
export class OsSandboxOptionError extends PtcError {
  override readonly name = 'OsSandboxOptionError';
  constructor(
    /** The option, as the caller wrote it (`osSandbox`, `bwrapPath`). */
    readonly option: string,
    readonly problem: string,
  ) {
    super(`${option} ${problem}`);
  }
}

/** A value for an error message, never throwing. */
export function describeValue(value: unknown): string {
  try {
    return typeof value === 'string' ? JSON.stringify(value) : String(value);
  } catch {
    return typeof value;
  }
}
