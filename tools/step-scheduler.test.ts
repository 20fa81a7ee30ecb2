import { describe, expect, it } from 'vitest';
import { defineTool } from './define-tool.js';
import { createToolHost } from './host.js';
import { StepScheduler } from './step-scheduler.js';
import { deferred } from './test-support.js';

function host() {
  const h = createToolHost();
  const log: string[] = [];
  const gates = new Map<string, ReturnType<typeof deferred<void>>>();
  const gate = (id: string) => gates.get(id) ?? (gates.set(id, deferred<void>()), gates.get(id)!);
  const body = async (args: { id: string }) => {
    log.push(`start ${args.id}`);
    await gate(args.id).promise;
    log.push(`end ${args.id}`);
    return args.id;
  };
  h.register(defineTool({ name: 'par', description: 'Parallel.', parameters: { id: { type: 'string', required: true } }, isConcurrencySafe: true, execute: body }));
  h.register(defineTool({ name: 'exc', description: 'Exclusive.', parameters: { id: { type: 'string', required: true } }, execute: body }));
  return { h, log, release: (id: string) => gate(id).resolve() };
}
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('StepScheduler', () => {
  it('holds the calls of one step to the rule: the exclusive one waits for those before it, and those after wait for it', async () => {
    const { h, log, release } = host();
    const steps = new StepScheduler(h);
    const step = {};
    const calls = [steps.call(step, { id: '1', name: 'par', args: { id: 'a' } }), steps.call(step, { id: '2', name: 'exc', args: { id: 'x' } }), steps.call(step, { id: '3', name: 'par', args: { id: 'b' } })];
    await tick();
    expect(log).toEqual(['start a']);
    release('a');
    await tick();
    expect(log).toEqual(['start a', 'end a', 'start x']);
    release('x');
    await tick();
    release('b');
    expect((await Promise.all(calls)).map((r) => r.value)).toEqual(['a', 'x', 'b']);
    expect(log).toEqual(['start a', 'end a', 'start x', 'end x', 'start b', 'end b']);
  });

  it('keeps steps apart: an exclusive call of one step does not hold up another step', async () => {
    const { h, log, release } = host();
    const steps = new StepScheduler(h);
    const one = steps.call({}, { id: '1', name: 'exc', args: { id: 'x' } });
    const two = steps.call({}, { id: '2', name: 'exc', args: { id: 'y' } });
    await tick();
    expect(log).toEqual(['start x', 'start y']);
    release('x');
    release('y');
    await Promise.all([one, two]);
  });

  it('puts calls without a step object in one queue of their own', async () => {
    const { h, log, release } = host();
    const steps = new StepScheduler(h);
    const one = steps.call(undefined, { id: '1', name: 'exc', args: { id: 'x' } });
    const two = steps.call(undefined, { id: '2', name: 'par', args: { id: 'a' } });
    await tick();
    expect(log).toEqual(['start x']);
    release('x');
    await tick();
    release('a');
    await Promise.all([one, two]);
    expect(log).toEqual(['start x', 'end x', 'start a', 'end a']);
  });
});
