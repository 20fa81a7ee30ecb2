import { describe, expect, it } from 'vitest';
import { normalizeNeedsParse, normalizeProgram } from '../../codegen/index.js';
import { MAX_HOST_NORMALIZE_CHARS, normalize } from './run-phases.js';

/** A wrapped program of about `chars` characters whose body returns 42 from its last line. */
const wrapped = (chars: number) => `async () => {\n  const pad = ${JSON.stringify('x'.repeat(chars))};\n  return pad.length > 0 ? 42 : 0;\n}`;
const working = { timeMs: 10_000, memoryMb: 512, maxQueuedPerAgent: 64 };
// A type-check thread that cannot start (TypeScript does not fit 16 MB): what goes through it
// comes back as written, which is how these tests see which thread did the work.
const failing = { timeMs: 10_000, memoryMb: 16, maxQueuedPerAgent: 64 };

describe('the normalize phase of run_code', () => {
  it('unwraps a long wrapped program on the type-check thread, to the same body and line offset as normalizeProgram', async () => {
    const code = `Here is the program:\n\n\`\`\`ts\n${wrapped(MAX_HOST_NORMALIZE_CHARS + 4_000)}\n\`\`\`\n`;
    expect(normalizeNeedsParse(code)).toBe(true);
    const phase = await normalize(code, working);
    expect(phase).toEqual({ code, ...normalizeProgram(code) });
    expect('body' in phase && phase.body.trimEnd().endsWith('return pad.length > 0 ? 42 : 0;')).toBe(true);
  }, 60_000);

  it('does not parse a long program on the host thread: when the type-check thread cannot, the text runs as written', async () => {
    const code = wrapped(MAX_HOST_NORMALIZE_CHARS + 4_000);
    expect(await normalize(code, failing)).toEqual({ code, body: code, lineOffset: 0 });
  }, 60_000);

  it('unwraps a short program on the host thread, without the type-check thread', async () => {
    const code = wrapped(100);
    const phase = await normalize(code, failing);
    expect(phase).toEqual({ code, ...normalizeProgram(code) });
    expect('body' in phase && phase.body).not.toContain('async () =>');
  });

  it('takes a long program that is neither fenced nor wrapped as it is, without parsing it', async () => {
    const code = `const pad = ${JSON.stringify('x'.repeat(MAX_HOST_NORMALIZE_CHARS))};\nreturn pad.length;`;
    expect(normalizeNeedsParse(code)).toBe(false);
    expect(await normalize(code, failing)).toEqual({ code, body: code, lineOffset: 0 });
  });
});
