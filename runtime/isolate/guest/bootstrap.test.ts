import { describe, expect, it } from 'vitest';
import { LOG_LEVELS, PROGRAM_HEADER_LINES } from './protocol.js';
import { loadGuestParts, startVmGuest, type VmGuest } from './test-support.js';

/** Answers the calls of `guest` from the `from`th on with `outcome(call)`, in one batch. */
function answer(guest: VmGuest, from: number, outcome: (call: { id: number; name: string; args: unknown }) => [0 | 1, string, string]): void {
  const batch: (string | number)[] = [];
  for (const call of guest.calls().slice(from)) batch.push(call.id, ...outcome(call));
  guest.deliver(batch);
}

const echo = (call: { args: unknown }): [1, string, string] => [1, JSON.stringify(call.args), ''];

/**
 * A program that replaces every function and accessor it can reach through the global scope
 * (each global, its prototype, the iterator and typed-array prototypes) with one that throws,
 * defines Error[Symbol.hasInstance], puts setters for the guest's own field names on
 * Object.prototype, an index setter on Array.prototype and a toJSON on both. It uses only what it
 * captured before (and a Date it made before).
 * Function.prototype.call and apply stay: in a vm context Node's own stack formatting (the
 * host's, which an isolate does not have) calls them on the context's call sites. The contract
 * suite patches them in real isolates.
 */
const PATCH_EVERYTHING = `
  const when = new Date(0);
  const ownKeys = Reflect.ownKeys, getDesc = Object.getOwnPropertyDescriptor, define = Object.defineProperty, protoOf = Object.getPrototypeOf, FP = Function.prototype;
  const boomFor = (what) => function () { throw 'the patched builtin ' + what + ' was called'; };
  const boom = boomFor('(a getter)');
  const targets = [protoOf([][Symbol.iterator]()), protoOf(protoOf([][Symbol.iterator]())), protoOf(async function () {}), protoOf(Int8Array), protoOf(Int8Array.prototype)];
  const names = ownKeys(globalThis);
  for (let i = 0; i < names.length; i++) {
    const v = globalThis[names[i]];
    if ((typeof v === 'object' || typeof v === 'function') && v !== null && names[i] !== 'tools' && names[i] !== 'console') {
      targets[targets.length] = v;
      if (typeof v === 'function' && v.prototype) targets[targets.length] = v.prototype;
    }
  }
  let patched = 0;
  for (let t = 0; t < targets.length; t++) {
    const keys = ownKeys(targets[t]);
    for (let k = 0; k < keys.length; k++) {
      const d = getDesc(targets[t], keys[k]);
      if (!d.configurable && !d.writable) continue;
      try {
        if (typeof d.value === 'function' && keys[k] !== 'constructor' && !(targets[t] === FP && (keys[k] === 'call' || keys[k] === 'apply'))) { define(targets[t], keys[k], { value: boomFor(typeof keys[k] === 'string' ? keys[k] : 'a symbol-keyed method') }); patched++; }
        else if (d.get) { define(targets[t], keys[k], { get: boom, set: boom }); patched++; }
      } catch {}
    }
  }
  try { define(Error, Symbol.hasInstance, { value: boom }); } catch {}
  const fields = ['resolve', 'reject', 'name', 'site', 'promise', 'path', 'problem', 'limit', 'value', 'up', 'key', 'maxBytes', 'argCaps', 'copy', 'arguments', 'result', 'reference'];
  for (let i = 0; i < fields.length; i++) define(Object.prototype, fields[i], { set: boom, get: () => undefined, configurable: true });
  define(Array.prototype, '0', { set: boom, get: () => undefined, configurable: true });
  define(Object.prototype, 'toJSON', { value: boomFor('Object.prototype.toJSON'), configurable: true, writable: true });
  define(Array.prototype, 'toJSON', { value: boomFor('Array.prototype.toJSON'), configurable: true, writable: true });
`;

describe('the guest (in a node:vm context, no isolate)', () => {
  it('runs a program: calls batched per turn, logs, outcomes delivered, the end with its JSON', () => {
    const guest = startVmGuest();
    expect(guest.start('console.log("a", 1, { b: [2] }); const [x, y] = await Promise.all([tools.echo({ n: 1 }), tools.echo({ n: 2 })]); return x.n + y.n;', ['echo'])).toBe(2);
    expect(guest.calls()).toEqual([
      { id: 1, name: 'echo', args: { n: 1 } },
      { id: 2, name: 'echo', args: { n: 2 } },
    ]);
    answer(guest, 0, echo);
    expect(guest.messages.map((m) => m.kind)).toEqual(['log', 'calls', 'end']);
    expect(guest.messages[0]!.items).toEqual(['log', 'a 1 {"b":[2]}']);
    expect(guest.end()).toEqual(['return', '3']);
  });

  it('sends one call as a batch of one and rejects a failed one with a ToolCallError', () => {
    const guest = startVmGuest();
    guest.start('try { await tools.fail({}); } catch (e) { return [e instanceof ToolCallError, e.name, e.toolName, e.message]; }', ['fail']);
    answer(guest, 0, () => [0, 'fail', 'disk on fire']);
    expect(guest.end()).toEqual(['return', '[true,"ToolCallError","fail","disk on fire"]']);
  });

  it('reports a throw with its line in ptc-program.js coordinates, and a syntax error', () => {
    const thrown = startVmGuest();
    thrown.start('const a = 1;\n  throw new TypeError("bad");');
    expect(thrown.end()).toEqual(['throw', 'TypeError: bad', 2 + PROGRAM_HEADER_LINES, 9]);
    const syntax = startVmGuest();
    syntax.start('let x = ;');
    expect(syntax.end()?.[0]).toBe('syntax');
  });

  it('keeps working when the program has patched every builtin it can reach', () => {
    const guest = startVmGuest();
    guest.start(`${PATCH_EVERYTHING}
      const r = await tools.echo({ a: 1, list: [1, 2], s: 'x', when });
      console.log('patched', patched > 100, { y: [1] });
      let failed;
      try { await tools.fail({}); } catch (e) { failed = e.message; }
      return { r: { a: r.a, list: r.list }, failed, date: r.when };`, ['echo', 'fail']);
    expect(guest.calls()).toEqual([{ id: 1, name: 'echo', args: { a: 1, list: [1, 2], s: 'x', when: '1970-01-01T00:00:00.000Z' } }]);
    answer(guest, 0, echo);
    answer(guest, 1, () => [0, 'fail', 'no']);
    expect(guest.messages.filter((m) => m.kind === 'log').map((m) => m.items)).toEqual([['log', 'patched true {"y":[1]}']]);
    expect(guest.end()).toEqual(['return', '{"r":{"a":1,"list":[1,2]},"failed":"no","date":"1970-01-01T00:00:00.000Z"}']);
  });

  it('agrees with the host on the protocol constants', () => {
    const { LOG_LEVELS: levels, PROGRAM_HEADER_LINES: lines } = loadGuestParts<{ LOG_LEVELS: string[]; PROGRAM_HEADER_LINES: number }>(
      ['intrinsics.js', 'json.js', 'console.js', 'sites.js'],
      ['LOG_LEVELS', 'PROGRAM_HEADER_LINES'],
    );
    expect([...levels]).toEqual(LOG_LEVELS);
    expect(lines).toBe(PROGRAM_HEADER_LINES);
  });
});
