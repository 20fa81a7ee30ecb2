/**
 * What JavaScript the sandbox's isolate runs, as the type check and its messages state it. The
 * isolate is V8 of the host's Node.js (isolated-vm); on Node 20 (V8 11.3) that is ES2023 plus
 * two ES2024 features, the regular expression `v` flag and `String.prototype.isWellFormed` /
 * `toWellFormed`, and none of ES2024's others (`Object.groupBy`, `Promise.withResolvers`,
 * resizable and transferable ArrayBuffers) or later (Set methods, iterator helpers,
 * `Array.fromAsync`). The checker's lib and target are set from this, and a test runs each
 * probe below in a real isolate (test/sandbox-language.test.ts), so the claim cannot drift from
 * what the isolate has.
 */

/** The sandbox's language level, as the model is told it. */
export const SANDBOX_LANGUAGE_LEVEL = 'ECMAScript 2023, plus the regular expression v flag and String isWellFormed/toWellFormed';

/** A feature the isolate lacks, how a program can do without it, and a program that returns true only where it exists. */
export interface MissingFeature {
  /** How a program writes it: `Object.groupBy`, `Set.prototype.union`, `WeakRef`. */
  readonly name: string;
  /** A short alternative, or undefined when there is none worth saying. */
  readonly instead?: string;
  /** JavaScript (an async function body) that returns true when the feature exists. */
  readonly probe: string;
}

const SET_INSTEAD = 'spread into arrays and filter (`new Set([...a, ...b])`, `[...a].filter((x) => b.has(x))`)';

/** Features past {@link SANDBOX_LANGUAGE_LEVEL} that models reach for, keyed by the member TypeScript names. */
export const MISSING_FEATURES: readonly MissingFeature[] = Object.freeze([
  { name: 'Object.groupBy', instead: 'group with a loop or `reduce` into an object', probe: "return typeof Object.groupBy === 'function'" },
  { name: 'Map.groupBy', instead: 'group with a loop into a `new Map()`', probe: "return typeof Map.groupBy === 'function'" },
  { name: 'Promise.withResolvers', instead: 'capture `resolve` in `new Promise((resolve) => { ... })`', probe: "return typeof Promise.withResolvers === 'function'" },
  { name: 'Array.fromAsync', instead: 'collect with `for await (const x of it) out.push(x)`', probe: "return typeof Array.fromAsync === 'function'" },
  ...['union', 'intersection', 'difference', 'symmetricDifference', 'isSubsetOf', 'isSupersetOf', 'isDisjointFrom'].map((method) => ({
    name: `Set.prototype.${method}`,
    instead: SET_INSTEAD,
    probe: `return typeof Set.prototype.${method} === 'function'`,
  })),
  { name: 'ArrayBuffer.prototype.transfer', probe: "return typeof ArrayBuffer.prototype.transfer === 'function'" },
  { name: 'ArrayBuffer.prototype.resize', probe: "return typeof ArrayBuffer.prototype.resize === 'function'" },
  { name: 'the Iterator global (iterator helpers)', instead: 'spread the iterator into an array first (`[...it].map(...)`)', probe: "return typeof globalThis.Iterator === 'function'" },
  { name: 'WeakRef', probe: "return typeof globalThis.WeakRef === 'function'" },
  { name: 'FinalizationRegistry', probe: "return typeof globalThis.FinalizationRegistry === 'function'" },
  { name: 'SharedArrayBuffer', probe: "return typeof globalThis.SharedArrayBuffer === 'function'" },
  { name: 'Atomics', probe: "return typeof globalThis.Atomics === 'object'" },
]);

/** A feature the isolate has and the check allows, with a program that returns true where it works. */
export interface SupportedFeature {
  readonly name: string;
  readonly probe: string;
  /** A TypeScript line using it, which the type check must accept. */
  readonly usage: string;
}

/** Recent features the isolate has (ES2022 to ES2024), each allowed by the type check. */
export const SUPPORTED_FEATURES: readonly SupportedFeature[] = Object.freeze([
  { name: 'RegExp v flag', probe: "return new RegExp('[\\\\p{L}--[a-z]]', 'v').test('A')", usage: 'const re = /[\\p{L}--[a-z]]/v; re.unicodeSets;' },
  { name: 'RegExp d flag', probe: "return new RegExp('a', 'd').exec('a').indices[0][1] === 1", usage: "const m = /a/d.exec('a'); m?.indices;" },
  { name: 'String.prototype.isWellFormed', probe: "return 'a'.isWellFormed() && 'a'.toWellFormed() === 'a'", usage: "'a'.isWellFormed(); 'a'.toWellFormed();" },
  { name: 'Array.prototype.findLast', probe: 'return [1, 2, 3].findLast((x) => x < 3) === 2 && [1, 2, 3].findLastIndex((x) => x < 3) === 1', usage: '[1, 2].findLast((x) => x > 1); [1].findLastIndex((x) => x > 0);' },
  { name: 'Array.prototype.toSorted', probe: "return [3, 1, 2].toSorted().join() === '1,2,3' && [1, 2].toReversed()[0] === 2 && [1, 2].with(0, 5)[0] === 5 && [1, 2, 3].toSpliced(1, 1).length === 2", usage: '[3, 1].toSorted(); [1].toReversed(); [1].with(0, 2); [1].toSpliced(0, 1);' },
  { name: 'Array.prototype.at', probe: 'return [1, 2].at(-1) === 2', usage: '[1, 2].at(-1);' },
  { name: 'Object.hasOwn', probe: "return Object.hasOwn({ a: 1 }, 'a')", usage: "Object.hasOwn({ a: 1 }, 'a');" },
  { name: 'Error cause', probe: "return new Error('x', { cause: 1 }).cause === 1", usage: "new Error('x', { cause: 1 });" },
  { name: 'Proxy and Reflect', probe: "return typeof Proxy === 'function' && Reflect.ownKeys({ a: 1 }).length === 1", usage: 'new Proxy({}, {}); Reflect.ownKeys({});' },
]);
