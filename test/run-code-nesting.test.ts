/**
 * A program's nesting costs the compiler more than its length: esbuild indents every level, so
 * 8 KB of `{{{...}}}` printed 32 MB and held the host's thread for 2.6 s (load 18) before this
 * was bounded. run_code refuses such a program, naming the line or the size, and the next run works.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runCodeHost } from './run-code-support.js';
import type { RunCodeTool } from '../runtime/index.js';
import { MAX_COMPILED_CHARS, MAX_PROGRAM_NESTING, transpileProgram } from '../runtime/run-code/transpile.js';
import { measureNesting } from '../runtime/run-code/program-nesting.js';

const opened: RunCodeTool[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

describe('when a program nests deeply', () => {
  const setup = () => {
    const s = runCodeHost('process', { typecheck: 'off' });
    opened.push(s.runCode);
    return s;
  };

  it('refuses brackets nested past the limit before compiling, at the line they reach it', async () => {
    const { run, value } = setup();
    const depth = 4000;
    const r = await run(`const a = 1;\n${'{'.repeat(depth)}${'}'.repeat(depth)}\nreturn 1;`);
    expect(r.value).toMatchObject({
      rejected: 'The program was not run: it is too deeply nested to compile.',
      reason: 'too-complex',
      diagnostics: [{ line: 2, message: expect.stringContaining(`nests ${depth} levels of brackets deep here; at most ${MAX_PROGRAM_NESTING} are accepted`) }],
    });
    expect((await value('return "next";')).result).toBe('next');
  });

  it('refuses a program whose compiled text passes the cap, however it nests', async () => {
    // `if (a) if (a) ...` has no brackets: each level is still one more indent in esbuild's output.
    const r = await transpileProgram(`${'if (a) '.repeat(1500)}b;`);
    expect(r).toMatchObject({ ok: false, kind: 'limit', message: expect.stringContaining(`at most ${MAX_COMPILED_CHARS} are accepted`) });
  });

  it('compiles and runs nesting a program really uses', async () => {
    const { value } = setup();
    const v = await value(`let n = 0;\n${'if (n >= 0) {\n'.repeat(40)}n++;\n${'}\n'.repeat(40)}return [n, { a: [{ b: \`\${[1].map((x) => ({ x }))[0].x}\` }] }];`);
    expect(v.result).toEqual([1, { a: [{ b: '1' }] }]);
  });
});

describe('when nesting is measured', () => {
  it('counts brackets and template substitutions, not what strings, comments and regular expressions hold', () => {
    expect(measureNesting('a({ b: [1] });')).toEqual({ depth: 3, line: 1 });
    expect(measureNesting('const s = "{{{{" + \'((((\' + `[[[[`;\n// {{{{\n/* ((((\n */ const r = /[{(]+/g;')).toEqual({ depth: 0, line: 1 });
    expect(measureNesting('x = `a${ `b${ f({}) }` }`;')).toEqual({ depth: 4, line: 1 });
    expect(measureNesting('const q = a / b / (c);\nif (x) {\n  y = [1];\n}')).toEqual({ depth: 2, line: 3 });
  });
});
