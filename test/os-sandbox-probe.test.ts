/**
 * The OS sandbox's probe (bubblewrap started a few times on `node --version`) runs without
 * blocking the host's event loop when run_code prepares it (issue 24, finding 12: done
 * synchronously it held the loop 140-212 ms at a process's first run). Checked by what the loop
 * does meanwhile, not by timing: callbacks keep running while the probe is pending, and the
 * runner's synchronous resolve afterwards finds its answer.
 */
import { describe, expect, it } from 'vitest';
import { prepareOsSandbox, resolveOsSandbox } from '../runtime/os-sandbox/index.js';

describe.runIf(process.platform === 'linux')('when the OS sandbox is prepared before the first sandbox process', () => {
  it('keeps the event loop turning while bubblewrap is probed, then resolves from the cache', async () => {
    let turns = 0;
    let pending = true;
    const spin = () => {
      turns++;
      if (pending) setImmediate(spin);
    };
    setImmediate(spin);
    const prepared = prepareOsSandbox({ mode: 'auto' });
    const turnsAtCall = turns;
    await prepared;
    pending = false;
    // A synchronous probe would have returned before one turn: every turn here ran during it.
    expect(turnsAtCall).toBe(0);
    expect(turns).toBeGreaterThan(3);
    const resolved = resolveOsSandbox({ mode: 'require' });
    expect(resolved.kind).toBe('bubblewrap');
  });

  it('shares one probe between callers that prepare at once', async () => {
    const [a, b] = [prepareOsSandbox({ mode: 'auto' }), prepareOsSandbox({ mode: 'auto' })];
    await Promise.all([a, b]);
    expect(resolveOsSandbox({ mode: 'auto' }).kind).toBe('bubblewrap');
  });

  it('leaves a bad mode for resolveOsSandbox to report, by name', async () => {
    await expect(prepareOsSandbox({ mode: 'sometimes' as never })).resolves.toBeUndefined();
    expect(() => resolveOsSandbox({ mode: 'sometimes' as never })).toThrow(/osSandbox/);
  });
});
