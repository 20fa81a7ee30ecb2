import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseArgsJson } from './args-snapshot.js';
import { defineTool } from './define-tool.js';
import { createToolHost } from './host.js';

/** A host with a `probe` tool whose schema counts its runs; the mode's function and the body record what they got. */
function probeHost() {
  const seen: { mode?: unknown; body?: unknown; validations: number } = { validations: 0 };
  const host = createToolHost();
  const registration = host.register(
    defineTool({
      name: 'probe',
      description: 'Probe.',
      parameters: z.object({
        q: z.string().refine(() => {
          seen.validations++;
          return true;
        }),
      }),
      isConcurrencySafe: (args) => {
        seen.mode = args;
        return true;
      },
      execute: (args) => {
        seen.body = args;
        return null;
      },
    }),
  );
  return { host, seen, registration };
}

describe("a program call's parsed args are materialized once for its mode and its pipeline", () => {
  it('validates a parsed document once, and hands the mode and the body the same frozen snapshot', async () => {
    const { host, seen } = probeHost();
    const args = parseArgsJson('{"q":"x"}');
    expect(host.executionMode({ name: 'probe', args }).kind).toBe('parallel');
    const result = await host.call({ id: 'c1', name: 'probe', args });
    expect(result.isError).toBe(false);
    expect(seen.validations).toBe(1);
    expect(seen.body).toBe(seen.mode);
    expect(Object.isFrozen(seen.body)).toBe(true);
    // Taken once: a second call with the document validates it again.
    await host.call({ id: 'c2', name: 'probe', args });
    expect(seen.validations).toBe(2);
  });

  it("materializes a caller's own object at each step, so a change in between is what the pipeline validates", async () => {
    const { host, seen } = probeHost();
    const args: { q: unknown } = { q: 'x' };
    expect(host.executionMode({ name: 'probe', args }).kind).toBe('parallel');
    args.q = 42;
    const result = await host.call({ id: 'c1', name: 'probe', args });
    expect(result.error).toMatchObject({ kind: 'invalid-args', message: expect.stringContaining('args.q') });
    expect(seen.validations).toBe(1);
  });

  it('validates again against a tool registered under the name in between', async () => {
    const { host, registration } = probeHost();
    const args = parseArgsJson('{"q":"x"}');
    expect(host.executionMode({ name: 'probe', args }).kind).toBe('parallel');
    registration.dispose();
    host.register(defineTool({ name: 'probe', description: 'Stricter.', parameters: { q: { type: 'number', required: true } }, execute: () => null }));
    const result = await host.call({ id: 'c1', name: 'probe', args });
    expect(result.error).toMatchObject({ kind: 'invalid-args', message: expect.stringContaining('args.q') });
  });

  it('reports a parsed document that does not validate as a fresh materialization would', async () => {
    const { host } = probeHost();
    const fresh = await host.call({ id: 'c0', name: 'probe', args: { q: 1 } });
    const args = parseArgsJson('{"q":1}');
    expect(host.executionMode({ name: 'probe', args }).kind).toBe('exclusive');
    const result = await host.call({ id: 'c1', name: 'probe', args });
    expect(result.error).toEqual(fresh.error);
  });
});
