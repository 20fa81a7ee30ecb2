import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LIMIT_NAMES, limitFailure, limitMessage, type LimitEvent } from './limit-failure.js';

const EVENTS: LimitEvent[] = [
  { by: 'program' },
  { by: 'program', measured: '12 bytes' },
  { by: 'process-killed', measured: '300 MB' },
  { by: 'process-died', exit: 'signal SIGABRT' },
  { by: 'queue', processes: 4 },
  { by: 'call', toolName: 'my.tool' },
];

describe('limit messages', () => {
  it.each(LIMIT_NAMES)('name %s=value in every situation', (limit) => {
    for (const event of EVENTS) {
      const message = limitMessage(limit, 1234, event);
      expect(message).toContain(`${limit}=1234`);
      expect(message).toMatch(/^[A-Z].*\.$/);
      expect(limitFailure(limit, 1234, event)).toEqual({ kind: 'limit', limit, value: 1234, message });
    }
  });

  it('say what happened next', () => {
    expect(limitMessage('cpuMs', 200)).toBe('The program used more than cpuMs=200 ms of CPU time and was stopped.');
    expect(limitMessage('rssMb', 256, { by: 'process-killed', measured: '300 MB' })).toBe(
      'The program used more than rssMb=256 MB of resident memory in its sandbox process (300 MB); its sandbox process was killed and replaced.',
    );
    expect(limitMessage('memoryMb', 32, { by: 'process-died', exit: 'signal SIGABRT' })).toBe('The program ran out of memory (memoryMb=32 MB); its sandbox process aborted (signal SIGABRT) and was replaced.');
    expect(limitMessage('wallMs', 300, { by: 'queue', processes: 1 })).toBe('No sandbox process became free within wallMs=300 ms (all 1 were running other programs); this program did not run.');
    expect(limitMessage('maxArgBytes', 10, { by: 'call', toolName: 'echo', measured: 'at least 12 bytes' })).toBe('The call to "echo" was refused: its arguments are larger than maxArgBytes=10 bytes of JSON (at least 12 bytes).');
    expect(limitMessage('maxCalls', 5, { by: 'call', toolName: 'echo' })).toBe('The call to "echo" was refused: the run made more than maxCalls=5 tool calls.');
  });

  it('are built here only: no other module of bridge/ or runtime/ writes `limit=${...}` by hand', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const files = ['bridge', 'runtime'].flatMap((dir) => sourcesUnder(join(root, dir)));
    const limitNames = LIMIT_NAMES.join('|');
    const handWritten = new RegExp(`(?:${limitNames})=\\$\\{|(?:${limitNames})=' \\+`);
    const offending = files
      .filter((f) => !f.endsWith('limit-failure.ts') && !f.endsWith('.test.ts'))
      .flatMap((f) => readFileSync(f, 'utf8').split('\n').map((line, i) => [`${relative(root, f)}:${i + 1}`, line] as const))
      .filter(([, line]) => handWritten.test(line))
      .map(([where]) => where);
    expect(offending).toEqual([]);
  });
});

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourcesUnder(p);
    return /\.(ts|js)$/.test(e.name) ? [p] : [];
  });
}
