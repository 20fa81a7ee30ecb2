import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../tools/index.js';
import { checkCode, CodeChecker, MAX_CHECKED_PROGRAM_CHARS, warmupCheckCode } from './check-code.js';
import { CHECKS_PER_SHARED_CHECKER } from './checker-session.js';
import { fixtureTools } from './fixtures/fixture-tools.js';
import { generateToolTypes } from './generate-tool-types.js';

const types = generateToolTypes(fixtureTools);

// Every behaviour holds for both strategies: the warm shared checker and a fresh one per check.
describe.each(['shared', 'fresh'] as const)('with the %s strategy', (strategy) => {
const checker = new CodeChecker(types, { strategy }).warmup();

function errorsOf(code: string) {
  return checker.check(code).diagnostics.filter((d) => d.category === 'error');
}
/** Every error as `line:column code` for compact assertions. */
function where(code: string): string[] {
  return errorsOf(code).map((d) => `${d.line}:${d.column} ${d.code}`);
}

describe('when a program uses the tools correctly', () => {
  const passing: Record<string, string> = {
    'calls with required and defaulted args, and reads output fields': `
const found = await tools.github_search_issues({ repo: 'acme/app', query: 'is:open crash' });
const titles = found.items.filter((i) => i.assignee === null).map((i) => i.title);
return { total: found.total, titles };`,
    'omits args of a tool whose args are all optional': `return await tools.ping();`,
    'runs calls in parallel with Promise.all': `
const cities = ['Lisbon', 'Oslo'];
const all = await Promise.all(cities.map((city) => tools.get_weather({ city, units: 'metric' })));
return all.map((w) => w.temperature);`,
    'narrows a discriminated union result': `
const file = await tools.read_file({ path: 'a.txt' });
if (file.kind === 'text') return file.text.slice(0, file.lines);
return file.bytes + (file.mime ?? '');`,
    'catches ToolCallError': `
try {
  await tools.read_file({ path: 'missing' });
} catch (err) {
  if (err instanceof ToolCallError) return \`\${err.toolName}: \${err.message}\`;
  throw err;
}`,
    'uses an untyped catch variable as the error it is': `
try { await tools.ping(); } catch (e) { console.log(e.message); }`,
    'passes an implicitly typed callback parameter, variable and dynamic index': `
const xs = [1, 2, 3];
function double(n) { return n * 2; }
let later;
later = xs.map(double);
const counts = { a: 1, b: 2 };
const key: string = 'a';
return [later, counts[key]];`,
    'indexes an array without a bounds check': `
const r = await tools.github_search_issues({ repo: 'a/b', query: 'x' });
return r.items[0].title.toUpperCase();`,
    'walks a recursive output': `
const root = await tools.list_folders({});
const names: string[] = [];
const walk = (f: typeof root) => { names.push(f.name); f.children.forEach(walk); };
walk(root);
return names;`,
    'uses records, unions and literal unions in args': `
await tools.set_labels({ labels: { '1': ['bug'] }, colors: { red: '#f00', green: '#0f0' }, mode: 'merge', note: null, target: { id: 3, kind: 'issue' } });
const r = await tools.set_labels({ labels: {}, target: 'all' });
return r.skipped.length + r.updated;`,
    'uses ES2023 library features and console': `
const xs = [3, 1, 2].toSorted((a, b) => a - b);
console.info(xs.at(-1), Object.fromEntries(xs.map((x) => [x, x % 2 ? 'odd' : 'even'])), new Map([[1, 2]]), [...'ab'].with(0, 'c'));
return JSON.stringify({ last: xs.findLast((x) => x > 1) });`,
    'refers to the generated types by name': `
const args: ToolArgsMap['github.search-issues'] = { repo: 'a/b', query: 'q' };
const out: ToolOutputMap['github.search-issues'] = await tools.github_search_issues(args);
return out.total;`,
  };
  for (const [name, code] of Object.entries(passing)) {
    it(name, () => {
      expect(checker.check(code)).toEqual({ ok: true, diagnostics: [] });
    });
  }
});

describe('when a program misuses the tools', () => {
  it('reports a wrong argument type at the argument', () => {
    const code = `const a = 1;\nawait tools.get_weather({ city: 42 });`;
    expect(where(code)).toEqual(['2:27 2322']);
    expect(errorsOf(code)[0]!.message).toBe("Type 'number' is not assignable to type 'string'.");
  });

  it('reports a missing required argument at the call', () => {
    const code = `\n\nawait tools.read_file({});`;
    expect(where(code)).toEqual(['3:23 2345']);
    expect(errorsOf(code)[0]!.message).toContain("Property 'path' is missing");
  });

  it('reports an extra argument', () => {
    const code = `await tools.read_file({ path: 'a', encoding: 'utf8' });`;
    expect(where(code)).toEqual(['1:36 2353']);
    expect(errorsOf(code)[0]!.message).toContain("'encoding' does not exist");
  });

  it('reports a wrong enum value', () => {
    expect(where(`await tools.get_weather({ city: 'x', units: 'kelvin' });`)).toEqual(['1:38 2322']);
  });

  it('reports an unknown tool and lists the tools there are', () => {
    const code = `const x = 1;\nconst r = await tools.search_web({ q: 'x' });`;
    expect(where(code)).toEqual(['2:23 2339']);
    expect(errorsOf(code)[0]!.message).toBe(
      "Property 'search_web' does not exist on type 'Tools'. Available tools: get_weather, github_search_issues, list_folders, ping, read_file, set_labels.",
    );
  });

  it('reports a tool called by its raw non-identifier name, or by a computed name', () => {
    expect(where(`await tools['github.search-issues']({ repo: 'a', query: 'b' });`)).toEqual(['1:13 2551']);
    expect(where(`const name: string = 'ping';\nawait tools[name]();`)).toEqual(['2:7 7053']);
  });

  it('reports an unknown output field', () => {
    const code = `const w = await tools.get_weather({ city: 'x' });\n\nreturn w.humidity;`;
    expect(where(code)).toEqual(['3:10 2339']);
  });

  it('reports a union member used without narrowing', () => {
    expect(where(`const f = await tools.read_file({ path: 'a' });\nreturn f.text;`)).toEqual(['2:10 2339']);
  });

  it('reports a forgotten await when a field is read', () => {
    expect(where(`const w = tools.get_weather({ city: 'x' });\nreturn w.city;`)).toEqual(['2:10 2339']);
  });
});

describe('when a program reaches for host globals', () => {
  it('reports process.exit() at its line with a message naming the sandbox', () => {
    const code = `const a = 1;\nprocess.exit(1);`;
    const [d] = errorsOf(code);
    expect([d!.line, d!.column]).toEqual([2, 1]);
    expect(d!.message).toMatch(/^Cannot find name 'process': programs run in a sandbox without Node\.js or browser APIs/);
  });

  it('reports require, fetch, timers and DOM globals', () => {
    const code = `require('fs');\nawait fetch('https://x');\nsetTimeout(() => {}, 1);\ndocument.title;\nBuffer.from('x');`;
    expect(errorsOf(code).map((d) => [d.line, d.message.split(':')[0]])).toEqual([
      [1, "Cannot find name 'require'"],
      [2, "Cannot find name 'fetch'"],
      [3, "Cannot find name 'setTimeout'"],
      [4, "Cannot find name 'document'"],
      [5, "Cannot find name 'Buffer'"],
    ]);
  });

  it('points a program reaching for a host timer to sleep, and types sleep as the one it has', () => {
    expect(errorsOf('setTimeout(() => {}, 1);').map((d) => d.message)).toEqual([
      "Cannot find name 'setTimeout': programs run in a sandbox without timers. To wait (before retrying a rate-limited call, say), use `await sleep(ms)` (at most 10000 ms per call).",
    ]);
    expect(errorsOf('const done: void = await sleep(1500); return done;')).toEqual([]);
    expect(errorsOf("await sleep('1s');").map((d) => d.message)).toEqual([expect.stringMatching(/not assignable to parameter of type 'number'/)]);
    expect(errorsOf('const n: number = await sleep(1);').length).toBe(1);
  });

  it('reports globals the sandbox removes (WeakRef, SharedArrayBuffer, Atomics)', () => {
    expect(errorsOf(`new WeakRef({});\nnew SharedArrayBuffer(8);\nAtomics.add;`).map((d) => d.line)).toEqual([1, 2, 3]);
  });

  it('reports host globals reached through globalThis', () => {
    expect(errorsOf(`globalThis.process.exit(1);`).map((d) => d.line)).toEqual([1]);
    expect(errorsOf(`(globalThis as any).process.exit(1);`)).toEqual([]); // an explicit any is the program's own choice
  });

  it('cannot import declarations from disk', () => {
    expect(checker.check(`import fs from 'node:fs';`).ok).toBe(false);
    expect(checker.check(`const fs = await import('node:fs');\nreturn fs.readFileSync('x');`).ok).toBe(false);
  });

  it('reports a body that closes the wrapper to declare globals of its own', () => {
    const code = `return 1;\n}\ndeclare global { var process: any }\nasync function again() {\nprocess.exit(1);`;
    const result = checker.check(code);
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ line: 2, column: 1, code: 0 });
    expect(result.diagnostics[0]!.message).toContain("closes the program's function body");
  });
});

describe('when a program uses a feature past the sandbox\'s language level', () => {
  const LEVEL = 'the sandbox, which runs ECMAScript 2023, plus the regular expression v flag and String isWellFormed/toWellFormed';

  it('names the sandbox\'s level and the feature, with an alternative, never "change your target library"', () => {
    const messages = errorsOf(`Object.groupBy([1], (x) => x);\nnew Set([1]).union(new Set([2]));\nPromise.withResolvers();`).map((d) => [d.line, d.message]);
    expect(messages).toEqual([
      [1, `Property 'groupBy' does not exist on type 'ObjectConstructor': Object.groupBy is not available in ${LEVEL}. Instead, group with a loop or \`reduce\` into an object.`],
      [2, `Property 'union' does not exist on type 'Set<number>': Set.prototype.union is not available in ${LEVEL}. Instead, spread into arrays and filter (\`new Set([...a, ...b])\`, \`[...a].filter((x) => b.has(x))\`).`],
      [3, `Property 'withResolvers' does not exist on type 'PromiseConstructor': Promise.withResolvers is not available in ${LEVEL}. Instead, capture \`resolve\` in \`new Promise((resolve) => { ... })\`.`],
    ]);
  });

  it('says the same for globals the sandbox removes and for iterator helpers', () => {
    const messages = errorsOf(`new WeakRef({});\nnew SharedArrayBuffer(8);\nnew Map([[1, 2]]).keys().map((x) => x);\nconst a = new ArrayBuffer(8).transfer();`).map((d) => d.message);
    expect(messages).toEqual([
      `Cannot find name 'WeakRef': WeakRef is not available in ${LEVEL}.`,
      `Cannot find name 'SharedArrayBuffer': SharedArrayBuffer is not available in ${LEVEL}.`,
      `Property 'map' does not exist on type 'MapIterator<number>': the Iterator global (iterator helpers) is not available in ${LEVEL}. Instead, spread the iterator into an array first (\`[...it].map(...)\`).`,
      `Property 'transfer' does not exist on type 'ArrayBuffer': ArrayBuffer.prototype.transfer is not available in ${LEVEL}.`,
    ]);
    for (const message of messages) expect(message).not.toMatch(/target library|compiler option|targeting/);
  });

  it('accepts what the isolate has: the regular expression v flag, isWellFormed, Proxy and Reflect', () => {
    expect(errorsOf(`const re = /[\\p{L}--[a-z]]/v;\nreturn [re.unicodeSets, 'a'.isWellFormed(), 'a'.toWellFormed(), Reflect.ownKeys(new Proxy({}, {}))];`)).toEqual([]);
  });
});

describe('when a program is wrapped or fenced', () => {
  it('positions diagnostics in the model text of a fenced async arrow', () => {
    const code = "Here you go:\n```ts\nasync () => {\n  const w = await tools.get_weather({ city: 1 });\n  return w;\n};\n```";
    expect(where(code)).toEqual(['4:39 2322']);
  });

  it('positions diagnostics in a one-line wrapper', () => {
    const code = `async () => { return (await tools.get_weather({ city: 'x' })).nope; }`;
    expect(where(code)).toEqual([`1:${code.indexOf('nope') + 1} 2339`]);
  });

  it('checks async function main() with its trailing call', () => {
    expect(checker.check(`async function main() {\n  return await tools.ping();\n}\nmain();`).ok).toBe(true);
  });
});

describe('when a program tries to switch the check off or change it for later programs', () => {
  it('does not honour @ts-ignore, @ts-expect-error or @ts-nocheck', () => {
    expect(where(`// @ts-nocheck\n// @ts-ignore\nprocess.exit(1);\n/* @ts-expect-error */\nawait tools.nope();`)).toEqual(['3:1 2591', '5:13 2339']);
  });

  it('leaves nothing behind for the next program, even after escaping the wrapper', () => {
    const escape = `return 1;\n}\ndeclare global { var process: any; interface Tools { nope(): Promise<void> } }\nasync function again() {`;
    expect(checker.check(escape).ok).toBe(false);
    expect(where(`process.exit(1);\nawait tools.nope();`)).toEqual(['1:1 2591', '2:13 2339']);
  });

  it('reports binder errors (strict mode) too', () => {
    expect(errorsOf(`var eval = 1;`).map((d) => d.code)).toEqual([1215]);
  });
});

describe('when a program has syntax errors', () => {
  it('reports them at the model line, including an unclosed block at the end', () => {
    expect(where(`const a = ;`)).toEqual(['1:11 1109']);
    const unclosed = errorsOf(`if (true) {\n  return 1;`);
    expect(unclosed).toHaveLength(1);
    expect(unclosed[0]!.line).toBe(2);
  });
});

describe('when the input is unusual', () => {
  it('accepts an empty program', () => {
    expect(checker.check('')).toEqual({ ok: true, diagnostics: [] });
  });

  it('checks a long line of slashes and comment openers in one pass', () => {
    expect(new CodeChecker(types).check('/'.repeat(150_000)).ok).toBe(true);
    expect(new CodeChecker(types).check('/* */ '.repeat(20_000) + 'return 1;').ok).toBe(true);
  });

  it('fails closed, without throwing, on nesting deep enough to exhaust the stack', () => {
    const result = new CodeChecker(types).check('return ' + '['.repeat(50_000) + ']'.repeat(50_000) + ';');
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]!.message).toMatch(/^The type checker failed on this program \(.+\); it was not checked\.$/);
  });

  it('refuses a program over the size limit with one diagnostic naming the limit', () => {
    const result = checker.check('x'.repeat(MAX_CHECKED_PROGRAM_CHARS + 1));
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]!.message).toContain(String(MAX_CHECKED_PROGRAM_CHARS));
  });

  it('caps the number of diagnostics and says how many more there are', () => {
    const code = Array.from({ length: 80 }, (_, i) => `undefinedName${i};`).join('\n');
    const result = checker.check(code);
    expect(result.diagnostics).toHaveLength(50);
    expect(result.diagnostics[49]!.message).toBe('… and 31 more problems (fix the ones above first).');
  });
});

});

describe('when the checker is configured or warmed', () => {
  const checker = new CodeChecker(types);
  it('knows the ES2023 features programs use', () => {
    const code = `
const text = 'a1b22c333';
const nums = [...text.matchAll(/\\d+/g)].map((m) => Number(m[0]));
const word = /(?<w>[a-z])/.exec(text)?.groups?.w;
const back = Object.fromEntries(Object.entries({ a: 1 }));
const map = new Map<string, number>([['a', 1]]);
for (const [k, v] of map) console.log(k, v);
for (const x of new Set([1, 2])) console.log(x);
async function* gen() { yield 1; }
for await (const g of gen()) console.log(g);
function* g2() { yield 2; }
const settled = await Promise.allSettled([Promise.resolve(1)]);
const first = await Promise.any([Promise.resolve(2)]);
const err = new Error('x', { cause: 1 });
const n = (1234.5).toLocaleString('en-US', { maximumFractionDigits: 0 }) + new Intl.NumberFormat('en').format(3);
const big = BigInt(10) * 2n;
return [nums.at(-1), nums.toSorted(), nums.findLast((x) => x > 1), [[1]].flat(), Array.from(g2()), 'x'.replaceAll('x', 'y'),
  Object.hasOwn(back, 'a'), word, settled, first, err.cause, n, big, Symbol('s').description, 'x'.padStart(3), new Date().toISOString()];`;
    expect(checker.check(code)).toEqual({ ok: true, diagnostics: [] });
  });

  it('checks against ES2023 by default and against a given lib set when asked', () => {
    const code = 'return [3, 1].toSorted().at(-1);';
    expect(checker.check(code).ok).toBe(true);
    const es5 = new CodeChecker(types, { lib: ['lib.es5.d.ts'] });
    expect(es5.check(code).diagnostics.map((d) => d.code)).toContain(2550);
    // A missing lib name is not a host global: TypeScript's own hint stays.
    expect(es5.check('return new Map();').diagnostics[0]!.message).toMatch(/^Cannot find name 'Map'\. Do you need to change your target library\?/);
  });

  it('warms the shared library without declarations', () => {
    expect(() => warmupCheckCode()).not.toThrow();
    expect(new CodeChecker(types).check('return 1;').ok).toBe(true);
  });

  it('fails closed with one error when the compiler itself throws, and recovers', () => {
    const own = new CodeChecker(types);
    const session = (own as unknown as { session: { diagnose: (text: string) => unknown } }).session;
    const original = session.diagnose;
    session.diagnose = () => {
      throw new Error('Debug Failure. boom\nstack');
    };
    expect(own.check('return 1;')).toEqual({
      ok: false,
      diagnostics: [{ line: 1, column: 1, code: 0, category: 'error', message: 'The type checker failed on this program (Debug Failure. boom); it was not checked.' }],
    });
    session.diagnose = original;
    expect(own.check('return 1;').ok).toBe(true);
  });

  it('falls back to a fresh checker when the shared one throws, with the same diagnostics', () => {
    const own = new CodeChecker(types);
    const session = own as unknown as { session: { diagnoseShared: () => never } };
    session.session.diagnoseShared = () => {
      throw new Error('internal API changed');
    };
    expect(own.check('await tools.read_file({ path: 1 });').diagnostics.map((d) => d.code)).toEqual([2322]);
  });

  it('works again after dispose', () => {
    const own = new CodeChecker(types).warmup();
    own.dispose();
    expect(own.check('await tools.nope();').ok).toBe(false);
  });
});

describe('when the tool set changes', () => {
  it('checks against the new declarations, through the shared cache', () => {
    const before = generateToolTypes([defineTool({ name: 'a', description: 'A', execute: () => 1 })]);
    const after = generateToolTypes([defineTool({ name: 'b', description: 'B', execute: () => 1 })]);
    warmupCheckCode(before);
    expect(checkCode('await tools.a();', before).ok).toBe(true);
    expect(checkCode('await tools.a();', after).ok).toBe(false);
    expect(checkCode('await tools.b();', after).ok).toBe(true);
    expect(checkCode('await tools.b();', before.declarations).ok).toBe(false);
  });

  it('gives the same result for repeated checks of one program', () => {
    const checker = new CodeChecker(types);
    const code = `await tools.get_weather({ city: 1 });`;
    expect(checker.check(code)).toEqual(checker.check(code));
    expect(checkCode(code, types)).toEqual(checker.check(code));
  });
});

describe('when the shared checker has served many checks', () => {
  type Peek = { session: { shared?: { checks: number; checker: unknown } } };
  const check = (own: CodeChecker, i: number) =>
    own.check(`const n${i} = ${i};\nawait tools.get_weather({ city: n${i} });`).diagnostics.map((d) => `${d.line}:${d.code}`);

  it('rebuilds it after the request that reached the count, and keeps giving the same diagnostics', async () => {
    const own = new CodeChecker(types);
    for (let i = 0; i < CHECKS_PER_SHARED_CHECKER; i++) expect(check(own, i)).toEqual(['2:2322']);
    const before = (own as unknown as Peek).session.shared!.checker;
    await new Promise((resolve) => setImmediate(resolve));
    const shared = (own as unknown as Peek).session.shared!;
    expect(shared.checker).not.toBe(before);
    expect(shared.checks).toBe(0);
    expect(check(own, 9999)).toEqual(['2:2322']);
  });

  it('rebuilds synchronously when the background rebuild never got to run', () => {
    const own = new CodeChecker(types).warmup();
    const peek = (own as unknown as Peek).session;
    const before = peek.shared!.checker;
    peek.shared!.checks = 2 * CHECKS_PER_SHARED_CHECKER;
    expect(check(own, 1)).toEqual(['2:2322']);
    expect(peek.shared!.checker).not.toBe(before);
    expect(peek.shared!.checks).toBe(1);
  });
});

describe('when the same programs go through both strategies', () => {
  it('gives identical diagnostics (differential test over generated programs)', () => {
    const shared = new CodeChecker(types);
    const fresh = new CodeChecker(types, { strategy: 'fresh' });
    const statements = [
      `const w = await tools.get_weather({ city: 'Oslo' });`,
      `const bad = await tools.get_weather({ city: 3 });`,
      `const f = await tools.read_file({ path: 'a' });`,
      `if (f.kind === 'text') console.log(f.text);`,
      `console.log(f.text);`,
      `const all = await Promise.all([1, 2].map((n) => tools.read_file({ path: String(n) })));`,
      `try { await tools.ping(); } catch (e) { console.log(e.message); }`,
      `await tools.nope();`,
      `process.exit(1);`,
      `let x; x = [1, 2].map((n) => n * 2); console.log(x);`,
      `const m = new Map<string, number>(); m.set('a', 'b');`,
      `interface Local { a: number } const l: Local = { a: 'x' };`,
      `return w.temperature;`,
      `const s = \`\${1}\`; const n: number = s;`,
      `class Box<T> { constructor(readonly v: T) {} get(): T { return this.v; } } const b = new Box(1).get().toFixed();`,
      `enum Color { Red, Green } const c: Color = Color.Red;`,
      `const { items = [] } = await tools.github_search_issues({ repo: 'a/b', query: 'q' }).catch(() => ({ items: [] }));`,
      `outer: for (const i of [1, 2]) { for (const j of [3]) { if (i === j) break outer; } }`,
      `const cfg = { mode: 'merge' } as const satisfies { mode: string };`,
      `function f(this: void, ...rest: number[]) { return arguments.length + rest.length; }`,
      `const mod = await import('node:fs');`,
      `namespace N { export const a = 1; }`,
      `declare const hidden: any;`,
      `const gen = async function* () { yield await tools.ping(); };`,
      `const t = (await tools.list_folders())?.children?.[0]?.name ?? 'none';`,
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...statements), { minLength: 1, maxLength: 8 }), (picked) => {
        const code = picked.join('\n');
        expect(shared.check(code)).toEqual(fresh.check(code));
      }),
      { numRuns: Number(process.env.DIFF_RUNS ?? 40) },
    );
  });
});

describe('when the program is arbitrary text', () => {
  const checker = new CodeChecker(types);
  it('never throws and positions every diagnostic inside the text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('tools.ping()', 'await ', 'return ', '}', '{', '(', ')', '\n', '`', '"', '/*', '*/', '//', 'x', ';', 'process', '```ts\n', 'async () => {'), maxLength: 30 }),
        (code) => {
          const result = checker.check(code);
          const lines = code.split('\n').length;
          for (const d of result.diagnostics) {
            expect(d.line).toBeGreaterThanOrEqual(1);
            expect(d.line).toBeLessThanOrEqual(lines);
            expect(d.column).toBeGreaterThanOrEqual(1);
          }
          expect(result.ok).toBe(!result.diagnostics.some((d) => d.category === 'error'));
        },
      ),
      { numRuns: 60 },
    );
  });
});
