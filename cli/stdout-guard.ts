/**
 * stdout carries a command's data (`ptc run`'s result, `ptc mcp serve`'s protocol), and code
 * the user loaded (a tools module, its `createHost`, the tools themselves) may print with
 * `console.log` or write to `process.stdout` too: in a protocol stream such a line corrupts it,
 * and one that looks like a response could be taken for one. While reserved, stdout is written
 * only through the returned stream; every other write to it goes to stderr.
 */
import { Writable } from 'node:stream';

/** The reserved stdout, and `release` to give stdout back (idempotent). */
export interface ReservedStdout {
  readonly out: Writable;
  release(): void;
}

export function reserveStdout(): ReservedStdout {
  const stdout = process.stdout;
  const own = Object.getOwnPropertyDescriptor(stdout, 'write');
  const write = stdout.write.bind(stdout) as (chunk: string | Uint8Array) => boolean;
  const out = new Writable({
    // Done once stdout took the chunk (at once, or after its 'drain'): not waiting for a write
    // callback, which a stream standing in for stdout may never call.
    write(chunk: string | Uint8Array, _encoding, callback) {
      if (write(chunk)) callback();
      else stdout.once('drain', () => callback());
    },
  });
  const toStderr = (...args: unknown[]) => (process.stderr.write as (...a: unknown[]) => boolean)(...args);
  Object.defineProperty(stdout, 'write', { value: toStderr, writable: true, configurable: true });
  let released = false;
  return {
    out,
    release() {
      if (released) return;
      released = true;
      if (own) Object.defineProperty(stdout, 'write', own);
      else delete (stdout as { write?: unknown }).write;
    },
  };
}

/** Runs `work` with stdout reserved for what it writes to `out`; gives stdout back after. */
export async function withReservedStdout<T>(work: (out: Writable) => Promise<T>): Promise<T> {
  const stdout = reserveStdout();
  try {
    return await work(stdout.out);
  } finally {
    stdout.release();
  }
}
