import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeProgram } from './normalize-program.js';

/** The model-text line of body line `bodyLine` (1-based). */
function modelLine(code: string, bodyLine: number): string {
  const { lineOffset } = normalizeProgram(code);
  return code.split('\n')[bodyLine - 1 + lineOffset]!;
}

describe('when the program is a plain body', () => {
  it('is returned unchanged with no offset', () => {
    const code = 'const x = await tools.ping();\nreturn x;';
    expect(normalizeProgram(code)).toEqual({ body: code, lineOffset: 0 });
  });

  it('keeps an async call that is not a wrapper', () => {
    const code = 'async function helper(n: number) { return n; }\nreturn await helper(1);';
    expect(normalizeProgram(code).body).toBe(code);
  });
});

describe('when the program is in a markdown fence', () => {
  it('takes the fenced code and counts the lines before it', () => {
    const code = 'Here is the program:\n```ts\nconst a = 1;\nreturn a;\n```\nIt returns 1.';
    expect(normalizeProgram(code)).toEqual({ body: 'const a = 1;\nreturn a;', lineOffset: 2 });
  });

  it('accepts a fence without a language and a tilde fence', () => {
    expect(normalizeProgram('```\nreturn 1;\n```').body).toBe('return 1;');
    expect(normalizeProgram('~~~typescript\nreturn 1;\n~~~').body).toBe('return 1;');
  });

  it('leaves text with two fenced blocks alone (ambiguous)', () => {
    const code = '```ts\nreturn 1;\n```\n```ts\nreturn 2;\n```';
    expect(normalizeProgram(code).body).toBe(code);
  });
});

describe('when the program is wrapped in an async function', () => {
  it('unwraps an async arrow and keeps lines and columns', () => {
    const code = 'async () => {\n  const r = await tools.ping();\n  return r;\n}';
    const out = normalizeProgram(code);
    expect(out.lineOffset).toBe(0);
    expect(out.body).toBe('             \n  const r = await tools.ping();\n  return r;\n');
    expect(modelLine(code, 2)).toBe('  const r = await tools.ping();');
  });

  it('unwraps a one-line arrow, keeping columns on its line', () => {
    const code = 'async () => { return 1; }';
    const out = normalizeProgram(code);
    expect(out.body).toBe(' '.repeat(13) + ' return 1; ');
    expect(out.body.indexOf('return')).toBe(code.indexOf('return'));
  });

  it('unwraps async function main() and its trailing call in any usual form', () => {
    for (const call of ['', 'main();', 'await main();', 'void main();', 'main().catch(console.error);']) {
      const code = `async function main() {\n  return 1;\n}\n${call}`;
      expect(normalizeProgram(code).body.trim()).toBe('return 1;');
    }
  });

  it('unwraps an immediately invoked async arrow and export default', () => {
    expect(normalizeProgram('(async () => {\n  return 1;\n})();').body.trim()).toBe('return 1;');
    expect(normalizeProgram('export default async function () {\n  return 1;\n}').body.trim()).toBe('return 1;');
    expect(normalizeProgram('export default async () => {\n  return 1;\n};').body.trim()).toBe('return 1;');
  });

  it('unwraps a fenced wrapper and adds both offsets', () => {
    const code = 'Sure:\n```ts\nasync function main() {\n  const r = await tools.ping();\n  return r;\n}\n```';
    expect(modelLine(code, 2)).toBe('  const r = await tools.ping();');
  });

  it('does not unwrap a function that takes parameters, or code after the wrapper', () => {
    const withParam = 'async (x) => {\n  return x;\n}';
    expect(normalizeProgram(withParam).body).toBe(withParam);
    const more = 'async function main() {\n  return 1;\n}\nconst y = 2;';
    expect(normalizeProgram(more).body).toBe(more);
    const otherCall = 'async function main() {\n  return 1;\n}\nother();';
    expect(normalizeProgram(otherCall).body).toBe(otherCall);
  });

  it('leaves a wrapper with syntax errors as written', () => {
    const code = 'async () => {\n  return (;\n}';
    expect(normalizeProgram(code).body).toBe(code);
  });
});

describe('when the text has Windows line endings or is arbitrary', () => {
  it('unwraps a CRLF wrapper and keeps line numbers', () => {
    const code = 'Sure:\r\n```ts\r\nasync () => {\r\n  return 1;\r\n}\r\n```';
    const { body, lineOffset } = normalizeProgram(code);
    expect(body.trim()).toBe('return 1;');
    expect(code.split('\n')[body.split('\n').findIndex((l) => l.includes('return')) + lineOffset]).toContain('return 1;');
  });

  it('never throws and always returns a body of the input\'s lines', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\n', '`', '{', '}', '(', ')', 'async', '=>', 'function', 'main', ';', '\r', '~') , maxLength: 60 }), (code) => {
        const { body, lineOffset } = normalizeProgram(code);
        expect(lineOffset).toBeGreaterThanOrEqual(0);
        expect(lineOffset + body.split('\n').length).toBeLessThanOrEqual(code.split('\n').length);
      }),
      { numRuns: 500 },
    );
  });
});

describe('when the text is built to make a scanner backtrack', () => {
  it('handles thousands of leading comments in one pass (no exponential regular expression)', () => {
    const code = '/* */ '.repeat(5000) + 'return 1;';
    expect(normalizeProgram(code)).toEqual({ body: code, lineOffset: 0 });
    const wrapped = '// note\n'.repeat(2000) + 'async () => {\n  return 1;\n}';
    expect(normalizeProgram(wrapped).body.trim()).toBe('return 1;');
  });
});

describe('when code holds a fenced example in a comment or a string', () => {
  it('keeps the whole program: the fence is part of the code', () => {
    const inComment = "/* Usage:\n```ts\nreturn 'from comment';\n```\n*/\nconst r = await tools.get({ id: 'a' });\nreturn r.n;";
    const inTemplate = "const r = await tools.get({ id: 'a' });\nconst md = `Result:\n~~~json\n${JSON.stringify(r)}\n~~~\n`;\nreturn md;";
    const inNestedTemplate = 'const r = 1;\nconst md = `a ${`b ${r}`} c\n```\nx\n```\n`;\nreturn md;';
    for (const code of [inComment, inTemplate, inNestedTemplate]) expect(normalizeProgram(code)).toEqual({ body: code, lineOffset: 0 });
  });

  it('still takes a fenced program out of prose that has apostrophes, slashes and inline code', () => {
    const code = "Here's the read/write program, using `tools.get` twice:\n```ts\nreturn 1;\n```\nThat's it.";
    expect(normalizeProgram(code)).toEqual({ body: 'return 1;', lineOffset: 2 });
  });

  it('still takes the fence out of prose that happens to open a comment (src/*.ts)', () => {
    const code = 'It reads src/*.ts files:\n```ts\nreturn 1;\n```';
    expect(normalizeProgram(code)).toEqual({ body: 'return 1;', lineOffset: 2 });
  });

  it('treats a regular expression with a quote or backtick as one token', () => {
    const code = "const re = /[`'\"]/g;\nconst s = `x\n```\ny\n```\n`;\nreturn re.test(s);";
    expect(normalizeProgram(code).body).toBe(code);
  });
});
