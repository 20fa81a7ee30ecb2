/**
 * A program that sends large invalid arguments again and again must not stall the host (issue
 * 24, finding 12): each call's host work is bounded (validation stops at the first problem, the
 * message is bounded, the parsed document is frozen without visiting its primitives). The loop
 * bound below is generous: the point is "no multi-hundred-ms stall", not a figure.
 */
import { describe, expect, it } from 'vitest';
import { createToolHost, defineTool } from '../tools/index.js';
import { openRunBridge } from './index.js';

describe('when a program sends 20 calls with invalid 99,000-item arguments', () => {
  it('refuses each with a short message naming the first problem, and the host keeps ticking', async () => {
    const host = createToolHost();
    host.register(defineTool({ name: 'sum', description: 'Sum.', parameters: { values: { type: 'array', items: { type: 'number' }, required: true } }, execute: () => 0 }));
    const bridge = openRunBridge({
      host,
      parentCallId: 'call_1',
      agent: { id: 'agent-1' },
      limits: { wallMs: 600_000, maxCalls: 100, maxInFlight: 4, maxLogBytes: 10_000, maxArgBytes: 4 << 20, maxArgDepth: 8, maxArgNodes: 100_000 },
      toolNames: new Map([['sum', 'sum']]),
    });
    const argsJson = JSON.stringify({ values: Array.from({ length: 99_000 }, (_, i) => `x${i}`) });
    let last = performance.now();
    let longestGapMs = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      longestGapMs = Math.max(longestGapMs, now - last);
      last = now;
    }, 5);
    try {
      for (let i = 0; i < 20; i++) {
        const outcome = await bridge.guest.call('sum', argsJson);
        expect(outcome.ok).toBe(false);
        const message = outcome.ok ? '' : outcome.message;
        expect(message).toContain('args.values[0]: expected number, received string; validation stopped at the first problem');
        expect(message.length).toBeLessThan(1_000); // one problem named, not 99,000
        // A program's calls come from its isolate one by one: let the loop turn between them.
        await new Promise((r) => setTimeout(r, 1));
      }
    } finally {
      clearInterval(tick);
    }
    await bridge.close({ outcome: 'ok' });
    // Generous (a loaded 2-vCPU machine): before the fix the first call alone held the loop 100-300 ms.
    expect(longestGapMs).toBeLessThan(1_500);
  }, 60_000);
});
