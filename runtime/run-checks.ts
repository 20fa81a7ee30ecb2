/** Small checks shared by the runners: byte caps, call ids, abort reasons. */

/** UTF-8 bytes of a string. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Whether `text` is over `cap` UTF-8 bytes (cheap length checks first). */
export function overBytes(text: string, cap: number): boolean {
  return text.length > cap || (text.length * 3 > cap && utf8Length(text) > cap);
}

/** A call id as the guest numbers them: a positive safe integer. */
export function isCallId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** A readable account of why a signal aborted a run. */
export function abortMessage(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.message) return `The run was aborted: ${reason.message}`;
  if (typeof reason === 'string' && reason) return `The run was aborted: ${reason}`;
  return 'The run was aborted by the host.';
}
