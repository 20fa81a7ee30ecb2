import { describe, expect, it } from 'vitest';
import { sourceLineByGeneratedLine, transpileProgram } from './transpile.js';

describe('when a program is transpiled', () => {
  it('strips types and maps every output line back to the line the model wrote', async () => {
    const body = [
      'interface Row { id: number }', // 1 (vanishes)
      'type Id = number;', // 2 (vanishes)
      'const rows: Row[] = await tools.list({});', // 3
      'const ids = rows.map((r: Row): Id => r.id);', // 4
      'if (ids.length > 0) {', // 5
      '  throw new Error("boom");', // 6
      '}', // 7
      'return ids;', // 8
    ].join('\n');
    const out = await transpileProgram(body);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const lines = out.program.js.split('\n');
    const throwAt = lines.findIndex((l) => l.includes('throw new Error')) + 1;
    expect(out.program.bodyLineOf(throwAt)).toBe(6);
    const mapAt = lines.findIndex((l) => l.includes('rows.map')) + 1;
    expect(out.program.bodyLineOf(mapAt)).toBe(4);
    expect(out.program.js).not.toMatch(/interface|: Row|Id =/);
  });

  it('returns syntax errors at body lines instead of throwing', async () => {
    const out = await transpileProgram('const a = 1;\nconst b = ;\nreturn a;');
    expect(out).toMatchObject({ ok: false, kind: 'syntax', errors: [{ line: 2, message: expect.any(String) }] });
  });

  it('leaves a body that closes the wrapper unparseable as a function body (the guest compiles it alone)', async () => {
    const out = await transpileProgram('return 1;\n}\nfunction evil() {');
    if (!out.ok) return; // refusing it here is fine too
    const AsyncFunction = (async () => {}).constructor as new (body: string) => unknown;
    expect(() => new AsyncFunction(out.program.js)).toThrow(SyntaxError);
  });
});

describe('when source map mappings are decoded', () => {
  it('gives the source line of each generated line', () => {
    // Generated line 0 -> source 0, line 1 -> source 2, line 2 unmapped, line 3 -> source 1.
    expect(sourceLineByGeneratedLine('AAAA;AAEA;;AADA')).toEqual([0, 2, undefined, 1]);
  });
});
