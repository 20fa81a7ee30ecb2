/** Runs `runCli` in this process, capturing stdout, stderr and the exit code. */
import { vi } from 'vitest';
import { runCli } from '../../cli/main.js';

export async function captureCli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  process.exitCode = undefined;
  try {
    const code = await runCli(argv);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
    process.exitCode = undefined;
  }
}
