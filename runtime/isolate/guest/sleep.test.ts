import { describe, expect, it } from 'vitest';
import { SLEEP_CALL } from '../../../codegen/index.js';
import { startVmGuest } from './test-support.js';

/** The program's end message as `[what, text]`. */
const endOf = (items: readonly (string | number)[] | undefined) => items?.slice(0, 2);

describe('sleep in the guest (node:vm, no isolate)', () => {
  it('crosses as a call to the reserved name with {"ms":n}, beside tool calls, and resolves to undefined', () => {
    const guest = startVmGuest();
    guest.start('const [a, s] = await Promise.all([tools.echo({ x: 1 }), sleep(250)]); return { a, s: s === undefined };', ['echo']);
    expect(guest.calls()).toEqual([
      { id: 1, name: 'echo', args: { x: 1 } },
      { id: 2, name: SLEEP_CALL, args: { ms: 250 } },
    ]);
    guest.deliver([1, 1, '{"x":1}', '', 2, 1, 'null', '']);
    expect(endOf(guest.end())).toEqual(['return', '{"a":{"x":1},"s":true}']);
  });

  it('sends a negative wait as 0 and an infinite one as a finite JSON number (the host applies its cap)', () => {
    const guest = startVmGuest();
    guest.start('await sleep(-5); await sleep(Infinity); await sleep(0.5); return 1;');
    guest.deliver([1, 1, 'null', '']);
    guest.deliver([2, 1, 'null', '']);
    expect(guest.calls().map((c) => c.args)).toEqual([{ ms: 0 }, { ms: 1e300 }, { ms: 0.5 }]);
  });

  it('refuses NaN and a value that is not a number with a TypeError, sending nothing', () => {
    const guest = startVmGuest();
    guest.start(`
      const out = [];
      for (const v of [NaN, '100', undefined]) {
        try { await sleep(v); } catch (e) { out.push(e instanceof TypeError ? e.message : 'not a TypeError'); }
      }
      return out;`);
    expect(guest.calls()).toEqual([]);
    expect(JSON.parse(guest.end()![1] as string)).toEqual([
      'sleep(ms) takes a number of milliseconds; got NaN.',
      'sleep(ms) takes a number of milliseconds; got string.',
      'sleep(ms) takes a number of milliseconds; got undefined.',
    ]);
  });

  it('lets at most maxSleeps wait at once, and refuses one more with an Error that says so', () => {
    const guest = startVmGuest();
    guest.start(
      `const waits = [sleep(10), sleep(10)];
       let refused = '';
       try { await sleep(10); } catch (e) { refused = e.name + ': ' + e.message; }
       await Promise.all(waits);
       await sleep(10); // room again once they settled
       return refused;`,
      [],
      { maxSleeps: 2 },
    );
    expect(guest.calls().map((c) => c.id)).toEqual([1, 2]);
    guest.deliver([1, 1, 'null', '', 2, 1, 'null', '']);
    expect(guest.calls().map((c) => c.id)).toEqual([1, 2, 3]);
    guest.deliver([3, 1, 'null', '']);
    expect(endOf(guest.end())).toEqual(['return', JSON.stringify('Error: sleep(ms) was refused: 2 sleeps of this run are already waiting, the most at once.')]);
  });

  it('rejects with a plain Error carrying the host\'s words when the host refuses a sleep (not a ToolCallError)', () => {
    const guest = startVmGuest();
    guest.start('try { await sleep(5); } catch (e) { return [e instanceof ToolCallError, e instanceof Error, e.message]; }');
    guest.deliver([1, 0, SLEEP_CALL, 'the run ended during the sleep']);
    expect(JSON.parse(guest.end()![1] as string)).toEqual([false, true, 'the run ended during the sleep']);
  });

  it('is a global the program cannot replace or reach past', () => {
    const guest = startVmGuest();
    guest.start(`
      const d = Object.getOwnPropertyDescriptor(globalThis, 'sleep');
      let replaced = true;
      try { globalThis.sleep = () => 1; } catch { replaced = false; }
      return [typeof sleep, d.writable, d.configurable, replaced && globalThis.sleep !== d.value, Object.isFrozen(sleep), typeof setTimeout, typeof setInterval];`);
    expect(JSON.parse(guest.end()![1] as string)).toEqual(['function', false, false, false, true, 'undefined', 'undefined']);
  });
});
