import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decision } from './decision.js';
import { defineTool } from './define-tool.js';
import { jsonlFileSink, readJsonl } from './jsonl.js';
import { toJson } from './json.js';
import { tokenIdOf } from './events.js';
import { createToolHost } from './host.js';
import { readFileTool, recordingHost } from './test-support.js';

describe('tools/execute middleware', () => {
  it('wraps the body, first registered outermost', async () => {
    const { host } = recordingHost();
    const trail: string[] = [];
    host.register(readFileTool(() => (trail.push('body'), 'text')));
    host.hooks.execute(async (_e, next) => (trail.push('outer>'), await next().finally(() => trail.push('<outer'))));
    host.hooks.execute(async (_e, next) => (trail.push('inner>'), await next().finally(() => trail.push('<inner'))));
    const result = await host.call({ id: '1', name: 'read_file', args: { path: '/a' } });
    expect(result.value).toBe('text');
    expect(trail).toEqual(['outer>', 'inner>', 'body', '<inner', '<outer']);
  });

  it('can replace the body (dry run), and its value is still validated', async () => {
    const { host } = recordingHost();
    let bodyRan = false;
    host.register(readFileTool(() => ((bodyRan = true), 'real')));
    const dispose = host.hooks.execute(async () => 'dry run');
    expect((await host.call({ id: '1', name: 'read_file', args: { path: '/a' } })).value).toBe('dry run');
    expect(bodyRan).toBe(false);
    dispose.dispose();
    host.hooks.execute(async () => 42);
    const invalid = await host.call({ id: '2', name: 'read_file', args: { path: '/a' } });
    expect(invalid.error?.kind).toBe('invalid-output');
  });

  it('cannot run the body twice', async () => {
    const { host } = recordingHost();
    let runs = 0;
    host.register(readFileTool(() => (++runs, 'x')));
    host.hooks.execute(async (_e, next) => (await next(), next()));
    const result = await host.call({ id: '1', name: 'read_file', args: { path: '/a' } });
    expect(result.error?.message).toMatch(/called next\(\) twice/);
    expect(runs).toBe(1);
  });
});

describe('tools/post-execute', () => {
  const userTool = () =>
    defineTool({
      name: 'user',
      description: 'A user.',
      output: { schema: { type: 'object', properties: { name: { type: 'string', required: true }, ssn: { type: 'string' } } } },
      execute: () => ({ name: 'Ada', ssn: '123-45-6789' }),
    });

  it('replace-content changes what the model reads and keeps the value intact', async () => {
    const { host } = recordingHost();
    host.register(userTool());
    host.hooks.postExecute(() => decision.replaceContent([{ type: 'text', text: 'A user record.' }], { additionalContext: 'shortened' }));
    const result = await host.call({ id: '1', name: 'user', args: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'A user record.' }]);
    expect(result.value).toEqual({ name: 'Ada', ssn: '123-45-6789' });
    expect(result.additionalContexts).toEqual(['shortened']);
  });

  it('replace-value is re-validated, re-frozen and rendered again', async () => {
    const { host } = recordingHost();
    host.register(userTool());
    host.hooks.postExecute(() => decision.replaceContent([{ type: 'text', text: 'shows 123-45-6789' }]));
    host.hooks.postExecute((_e, result) => decision.replaceValue({ ...(result.value as object), ssn: 'redacted' }));
    const result = await host.call({ id: '1', name: 'user', args: {} });
    expect(result.value).toEqual({ name: 'Ada', ssn: 'redacted' });
    expect(Object.isFrozen(result.value)).toBe(true);
    expect(JSON.stringify(result.content)).not.toContain('123-45-6789');
  });

  it('an invalid replacement value becomes an error', async () => {
    const { host } = recordingHost();
    host.register(userTool());
    host.hooks.postExecute(() => decision.replaceValue({ name: 7 }));
    const result = await host.call({ id: '1', name: 'user', args: {} });
    expect(result.isError).toBe(true);
    expect(result.error?.kind).toBe('invalid-output');
    expect(result.error?.message).toMatch(/post-execute listener #0 .*value\.name/);
    expect(result.value).toBeUndefined();
  });

  it('block withholds value and content, is final, and keeps the contexts', async () => {
    const { host } = recordingHost();
    host.register(userTool());
    let laterCalled = false;
    host.hooks.postExecute(() => decision.block('contains PII', { additionalContext: 'ask for consent first' }));
    host.hooks.postExecute(() => ((laterCalled = true), decision.replaceValue({ name: 'x' })));
    const result = await host.call({ id: '1', name: 'user', args: {} });
    expect(result).toMatchObject({ isError: true, blocked: { reason: 'contains PII', index: 0 }, additionalContexts: ['ask for consent first'] });
    expect(result.value).toBeUndefined();
    expect(JSON.stringify(result.content)).not.toContain('Ada');
    expect(laterCalled).toBe(false);
  });

  it('collects additionalContexts from pre and post listeners in order', async () => {
    const { host } = recordingHost();
    host.register(userTool());
    host.hooks.preExecute(() => decision.allow({ additionalContext: 'pre' }));
    host.hooks.postExecute(() => decision.replaceContent([{ type: 'text', text: 'x' }], { additionalContext: 'post' }));
    expect((await host.call({ id: '1', name: 'user', args: {} })).additionalContexts).toEqual(['pre', 'post']);
  });

  it('a throwing post-execute listener blocks (fail closed)', async () => {
    const { host } = recordingHost();
    host.register(userTool());
    host.hooks.postExecute(() => {
      throw new Error('redactor down');
    });
    const result = await host.call({ id: '1', name: 'user', args: {} });
    expect(result.blocked?.reason).toMatch(/redactor down/);
    expect(result.value).toBeUndefined();
  });
});

describe('events', () => {
  it('emits tool/call, tool/decision, tool/result in order with frozen args and who decided', async () => {
    let t = 1000;
    const { host, events } = recordingHost({ now: () => (t += 5) });
    host.register(readFileTool());
    host.hooks.guard((e) => ((e.args as { path: string }).path.startsWith('/etc') ? 'outside workspace' : undefined));
    await host.call({ id: 'ok', name: 'read_file', args: { path: '/a' } });
    await host.call({ id: 'no', name: 'read_file', args: { path: '/etc/passwd' } });
    expect(events.map((e) => `${e.type}:${'callId' in e ? e.callId : ''}`)).toEqual([
      'tool/call:ok',
      'tool/decision:ok',
      'tool/result:ok',
      'tool/call:no',
      'tool/decision:no',
      'tool/result:no',
    ]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events[0]).toMatchObject({ type: 'tool/call', args: { path: '/a' }, argsValid: true, origin: { kind: 'model' } });
    expect(Object.isFrozen((events[0] as { args: object }).args)).toBe(true);
    expect(events[4]).toMatchObject({ decision: 'deny', by: { kind: 'guard', index: 0 }, reason: 'outside workspace' });
    expect(events[5]).toMatchObject({ isError: true, denied: { by: 'guard', reason: 'outside workspace' } });
    expect((events[5] as { durationMs: number }).durationMs).toBeGreaterThan(0);
  });

  it('never logs a PTC token, only its digest', async () => {
    const { host, events } = recordingHost();
    host.register(readFileTool());
    const token = 'tok_super_secret_value';
    await host.call({ id: 'c', name: 'read_file', args: { path: '/a' } }, { origin: { kind: 'ptc', parentCallId: 'run-1', token } });
    expect(JSON.stringify(events)).not.toContain(token);
    expect(events[0]).toMatchObject({ origin: { kind: 'ptc', parentCallId: 'run-1', tokenId: expect.stringMatching(/^[0-9a-f]{16}$/) } });
  });

  it("reads a frozen origin once, and an origin whose fields are getters at every call", async () => {
    const { host, events } = recordingHost();
    host.register(readFileTool());
    const settled = Object.freeze({ kind: 'ptc' as const, parentCallId: 'run-1', token: 'tok_a' });
    await host.call({ id: 'a1', name: 'read_file', args: { path: '/a' } }, { origin: settled });
    await host.call({ id: 'a2', name: 'read_file', args: { path: '/a' } }, { origin: settled });
    let reads = 0;
    const tokens = ['tok_b', 'tok_c'];
    const shifty = Object.freeze({
      kind: 'ptc' as const,
      parentCallId: 'run-2',
      get token() {
        return tokens[reads++ % 2]!;
      },
    });
    await host.call({ id: 'b1', name: 'read_file', args: { path: '/a' } }, { origin: shifty });
    await host.call({ id: 'b2', name: 'read_file', args: { path: '/a' } }, { origin: shifty });
    expect(reads).toBe(2);
    const tokenIds = events.filter((e) => e.type === 'tool/call').map((e) => (e as { origin: { tokenId: string } }).origin.tokenId);
    expect(tokenIds[0]).toBe(tokenIds[1]);
    expect(tokenIds[2]).not.toBe(tokenIds[3]);
    expect(tokenIds.map((id) => id === tokenIdOf('tok_a') || id === tokenIdOf('tok_b') || id === tokenIdOf('tok_c'))).toEqual([true, true, true, true]);
  });

  it('a program call renders its JSON content compactly when first read; a model call gets it indented', async () => {
    const { host, events } = recordingHost();
    const value = { rows: [{ id: 1, tags: ['a'] }], total: 1 };
    host.register(defineTool({ name: 'list', description: 'Lists.', execute: () => value }));
    const fromModel = await host.call({ id: 'm', name: 'list', args: {} });
    const fromProgram = await host.call({ id: 'p', name: 'list', args: {} }, { origin: { kind: 'ptc', parentCallId: 'run-1', token: 'tok' } });
    expect(fromModel.content).toEqual([{ type: 'text', text: JSON.stringify(value, null, 2) }]);
    const compact = JSON.stringify(value);
    expect(fromProgram.content).toEqual([{ type: 'text', text: compact }]);
    expect(fromProgram.value).toEqual(value);
    expect(Object.isFrozen(fromProgram.content) && Object.isFrozen(fromProgram.content[0])).toBe(true);
    // What sinks see: the event serializes to the same text, and content cannot be rewritten.
    const result = events.filter((e) => e.type === 'tool/result').at(-1)!;
    expect(JSON.parse(JSON.stringify(result)).content).toEqual([{ type: 'text', text: compact }]);
    expect(() => {
      (fromProgram.content[0] as { text: string }).text = 'forged';
    }).toThrow(TypeError);
    expect(structuredClone(fromProgram.content)).toEqual([{ type: 'text', text: compact }]);
    // A model's call keeps plain data blocks, which the strict JSON copier accepts.
    expect(toJson(fromModel.content)).toEqual([{ type: 'text', text: JSON.stringify(value, null, 2) }]);
  });

  it("a program call's content stays a bounded preview in its event, whatever the value's size; the value is whole", async () => {
    const { host, events } = recordingHost();
    let data: unknown = Array.from({ length: 60_000 }, () => 1);
    for (let i = 0; i < 58; i++) data = [data];
    host.register(defineTool({ name: 'echo', description: 'Echoes.', parameters: z.object({ data: z.unknown() }), execute: (args) => args.data as never }));
    host.register(defineTool({ name: 'say', description: 'Says.', execute: () => 'x'.repeat(100_000) }));
    const echoed = await host.call({ id: 'p', name: 'echo', args: { data } }, { origin: { kind: 'ptc', parentCallId: 'run-1', token: 'tok' } });
    expect(echoed.value).toEqual(data);
    const event = events.filter((e) => e.type === 'tool/result').at(-1)!;
    const line = JSON.stringify(event);
    // The value once, compact (120 KB), and a 4 KiB preview: not 7.7 MB of indentation.
    expect(line.length).toBeLessThan(JSON.stringify(data).length + 6_000);
    expect((event as unknown as { content: { text: string }[] }).content[0]!.text).toMatch(/^\[\[\[.*cut at 4096 characters; the whole value is in `value`\)$/);
    const said = await host.call({ id: 'q', name: 'say', args: {} }, { origin: { kind: 'ptc', parentCallId: 'run-1', token: 'tok' } });
    expect((said.content[0] as { text: string }).text.length).toBeLessThan(4_200);
    expect(said.value).toHaveLength(100_000);
  });

  it('a model call gets a deeply nested value compact, not indented into megabytes', async () => {
    const { host } = recordingHost();
    let deep: unknown = [];
    for (let i = 0; i < 500; i++) deep = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, deep];
    host.register(defineTool({ name: 'deep', description: 'Deep.', execute: () => deep as never }));
    const result = await host.call({ id: 'm', name: 'deep', args: {} });
    expect((result.content[0] as { text: string }).text).toBe(JSON.stringify(deep));
  });

  it('a JSONL sink writes one event a line, and the log reads back', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ptc-log-')), 'session.jsonl');
    const sink = jsonlFileSink(path);
    const host = createToolHost({ onEvent: sink });
    host.register(readFileTool());
    await host.runTurn([
      { id: '1', name: 'read_file', args: { path: '/a' } },
      { id: '2', name: 'nope', args: {} },
    ]);
    sink.close();
    const text = readFileSync(path, 'utf8');
    expect(text.trimEnd().split('\n')).toHaveLength(5);
    const { events, problems } = readJsonl(text + '{"type":"tool/ca');
    expect(problems).toEqual([{ line: 6, problem: 'truncated last line' }]);
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/decision', 'tool/result', 'tool/call', 'tool/result']);
    expect(events[2]).toMatchObject({ callId: '1', value: 'contents of /a' });
  });

  it('a throwing sink never breaks a call', async () => {
    const host = createToolHost({
      onEvent: () => {
        throw new Error('disk full');
      },
    });
    host.register(readFileTool());
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const result = await host.call({ id: '1', name: 'read_file', args: { path: '/a' } });
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(result.value).toBe('contents of /a');
    expect(warnings.some((w) => w.includes('disk full'))).toBe(true);
  });
});

describe('call shape', () => {
  it('refuses a call without an id, recorded with the reason', async () => {
    const { host, events } = recordingHost();
    let ran = false;
    host.register(readFileTool(() => ((ran = true), 'x')));
    const missing = await host.call({ name: 'read_file', args: { path: '/a' } } as never);
    const empty = await host.call({ id: '', name: 'read_file', args: { path: '/a' } });
    expect(ran).toBe(false);
    expect(missing).toMatchObject({ isError: true, error: { kind: 'invalid-call' } });
    expect(missing.error?.message).toBe('The call to "read_file" has no id: ToolCall.id must be a non-empty string (got undefined).');
    expect(empty.error?.message).toMatch(/got an empty string/);
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/result', 'tool/call', 'tool/result']);
  });
});

describe('abort', () => {
  it('a call whose signal is already aborted is recorded and never runs', async () => {
    const { host, events } = recordingHost();
    let ran = false;
    host.register(readFileTool(() => ((ran = true), 'x')));
    const controller = new AbortController();
    controller.abort();
    const result = await host.call({ id: '1', name: 'read_file', args: { path: '/a' } }, { signal: controller.signal });
    expect(result.error?.kind).toBe('aborted');
    expect(ran).toBe(false);
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/result']);
  });

  it('passes the signal to the body and returns as soon as it fires', async () => {
    const { host } = recordingHost();
    let bodySignal: AbortSignal | undefined;
    host.register(
      defineTool({ name: 'hang', description: 'Hangs.', parameters: z.object({}), execute: (_a, exec) => ((bodySignal = exec.signal), new Promise(() => {})) }),
    );
    const controller = new AbortController();
    const pending = host.call({ id: '1', name: 'hang', args: {} }, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const result = await pending;
    expect(result.error?.kind).toBe('aborted');
    expect(bodySignal?.aborted).toBe(true);
  });

  it('gives each call a signal of its own: listeners a tool never removes do not pile up on a shared one', async () => {
    const { host } = recordingHost();
    const seen: AbortSignal[] = [];
    host.register(
      defineTool({
        name: 'listens',
        description: 'Adds an abort listener and never removes it.',
        execute: (_a, exec) => {
          exec.signal.addEventListener('abort', () => undefined, { once: true });
          seen.push(exec.signal);
          return 'ok';
        },
      }),
    );
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    for (let i = 0; i < 20; i++) await host.call({ id: String(i), name: 'listens', args: {} });
    const controller = new AbortController();
    for (let i = 0; i < 20; i++) await host.call({ id: `s${i}`, name: 'listens', args: {} }, { signal: controller.signal });
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(new Set(seen).size).toBe(40);
    expect(seen.every((s) => !s.aborted)).toBe(true);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('waits up to a tool\'s abortGraceMs for its body to wind down, then reports the abort', async () => {
    const { host, events } = recordingHost();
    host.register([
      defineTool({
        name: 'winds_down',
        description: 'Records its own end when aborted.',
        abortGraceMs: 1_000,
        execute: (_a, exec) =>
          new Promise((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => setTimeout(() => (host.emit({ type: 'ptc/run-end', callId: exec.callId } as never), reject(new Error('stopped'))), 20));
          }),
      }),
      defineTool({ name: 'stuck', description: 'Never ends.', abortGraceMs: 50, execute: () => new Promise(() => {}) }),
    ]);
    const controller = new AbortController();
    const pending = host.call({ id: 'w', name: 'winds_down', args: {} }, { signal: controller.signal });
    const stuck = host.call({ id: 's', name: 'stuck', args: {} }, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect((await pending).error?.kind).toBe('aborted');
    expect((await stuck).error?.kind).toBe('aborted');
    const order = events.filter((e) => 'callId' in e && e.callId === 'w').map((e) => e.type);
    expect(order.slice(-2)).toEqual(['ptc/run-end', 'tool/result']);
    expect(() => defineTool({ name: 'bad', description: 'd', abortGraceMs: -1, execute: () => 1 })).toThrow('Invalid tool "bad": abortGraceMs must be an integer from 0 to 60000 (ms)');
  });

  it('many calls in flight on one signal share one listener, and an abort still reaches every one', async () => {
    const { host } = recordingHost();
    host.register(defineTool({ name: 'hang', description: 'Hangs.', isConcurrencySafe: true, execute: () => new Promise(() => {}) }));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const controller = new AbortController();
    const pending = Array.from({ length: 50 }, (_, i) => host.call({ id: String(i), name: 'hang', args: {} }, { signal: controller.signal }));
    await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const results = await Promise.all(pending);
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(results.every((r) => r.error?.kind === 'aborted')).toBe(true);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
