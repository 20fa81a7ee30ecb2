/**
 * ptc-runtime/anthropic in the loops people write with `@anthropic-ai/sdk`, offline: the real
 * client against a scripted Messages API (test/support/anthropic-fake.ts). Each test runs the
 * loop (`messages.create` -> `runToolUses` -> the next `create`, or the SDK's `toolRunner`) and
 * checks what the API received next, what the tool bodies did, and what the host recorded.
 * The behaviour every adapter shares is in test/adapter-anthropic-contract.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MessageCreateParamsNonStreaming, ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { runToolUses, toAnthropicRunnableTools, toAnthropicTools } from '../anthropic/index.js';
import { createRunCodeTool, type RunCodeTool } from '../runtime/index.js';
import { createToolHost, decision, defineTool, traceFileSink, type ApprovalChannel, type ToolEvent, type ToolHost } from '../tools/index.js';
import { captureCli } from './support/capture-cli.js';
import { codeExecution, codeExecutionResult, fakeAnthropic, MODEL, reply, text, toolResultsOf, toolUse, type FakeAnthropic } from './support/anthropic-fake.js';

const AGENT = { id: 'claude-agent' };
const FROM_PROGRAM = { type: 'code_execution_20260120', tool_id: 'srvtoolu_01prog' } as const;

/** A host with a few tools whose bodies log what they do, and its events. */
function testHost(options: { approval?: ApprovalChannel } = {}) {
  const events: ToolEvent[] = [];
  const log: string[] = [];
  const host = createToolHost({ ...(options.approval ? { approval: options.approval } : {}), onEvent: (e) => events.push(e) });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  host.register([
    defineTool({
      name: 'lookup',
      description: 'Looks a term up.',
      parameters: { q: { type: 'string', required: true }, ms: { type: 'integer', minimum: 0 } },
      output: { schema: { type: 'object', properties: { q: { type: 'string', required: true }, hits: { type: 'array', items: { type: 'string' }, required: true } } } },
      isConcurrencySafe: true,
      async execute(args) {
        log.push(`start ${args.q}`);
        await sleep(args.ms ?? 0);
        log.push(`end ${args.q}`);
        return { q: args.q, hits: [`${args.q}-1`, `${args.q}-2`] };
      },
    }),
    defineTool({
      name: 'write_note',
      description: 'Writes a note (one at a time).',
      parameters: { note: { type: 'string', required: true } },
      async execute(args) {
        log.push(`start write ${args.note}`);
        await sleep(2);
        log.push(`end write ${args.note}`);
        return `wrote ${args.note}`;
      },
    }),
    defineTool({ name: 'deploy', description: 'Deploys.', parameters: { env: { type: 'string', required: true } }, execute: (args) => (log.push(`deploy ${args.env}`), `deployed ${args.env}`) }),
    defineTool({ name: 'fail', description: 'Fails.', parameters: { message: { type: 'string', required: true } }, execute: (args) => { throw new Error(args.message); } }),
    defineTool({
      name: 'chart',
      description: 'Draws a chart.',
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: 'the chart:' }, { type: 'image', data: value, mimeType: 'image/png' }] },
      execute: () => 'iVBORw0KGgo=',
    }),
    defineTool({
      name: 'wait',
      description: 'Waits until cancelled.',
      execute: (_args, exec) => new Promise<string>((resolve) => {
        log.push('waiting');
        exec.signal.addEventListener('abort', () => (log.push(`aborted: ${String((exec.signal.reason as Error)?.message)}`), resolve('stopped')), { once: true });
      }),
    }),
  ]);
  host.hooks.preExecute((e) => (e.toolName === 'deploy' ? decision.ask('deploys need a person') : undefined));
  host.hooks.preExecute((e) => (e.toolName === 'lookup' && (e.args as { q: string }).q === 'ctx' ? decision.allow({ additionalContext: 'ctx results are a day old' }) : undefined));
  host.hooks.guard((e) => (e.toolName === 'lookup' && (e.args as { q: string }).q === 'secret' ? 'secret terms are off limits' : undefined));
  return { host, events, log };
}

/** One turn of the manual loop: the first reply's tool_use blocks answered, the second request sent. */
async function loop(api: FakeAnthropic, host: ToolHost, params: Partial<MessageCreateParamsNonStreaming> = {}, signal?: AbortSignal) {
  const base = { model: MODEL, max_tokens: 1024, tools: toAnthropicTools(host), messages: [{ role: 'user' as const, content: 'go' }], ...params };
  const first = await api.client.messages.create(base, { signal });
  const results = await runToolUses(host, first, { agent: AGENT, tools: base.tools, ...(signal ? { signal } : {}) });
  const next = await api.client.messages.create(
    { ...base, ...(first.container ? { container: first.container.id } : {}), messages: [...base.messages, { role: 'assistant', content: first.content }, { role: 'user', content: results }] },
    { signal },
  );
  return { first, results, next };
}

const resultOf = (events: readonly ToolEvent[], callId: string) => events.find((e) => e.type === 'tool/result' && e.callId === callId) as Extract<ToolEvent, { type: 'tool/result' }> | undefined;
const callOf = (events: readonly ToolEvent[], callId: string) => events.find((e) => e.type === 'tool/call' && e.callId === callId) as Extract<ToolEvent, { type: 'tool/call' }> | undefined;

const runCodes: RunCodeTool[] = [];
afterEach(async () => {
  await Promise.all(runCodes.splice(0).map((r) => r.close()));
});

describe('when Claude calls our tools directly (messages.create, runToolUses, the next create)', () => {
  it('sends our definitions as the tools and a run_code program\'s result as the tool_result of the same id', async () => {
    const { host, events } = testHost();
    const runCode = createRunCodeTool({ host, isolation: 'isolate', limits: { wallMs: 30_000 } });
    runCodes.push(runCode);
    host.register(runCode);
    const code = 'const a = await tools.lookup({ q: "alpha" }); const b = await tools.lookup({ q: "beta" }); return [...a.hits, ...b.hits];';
    const api = fakeAnthropic([reply([text('I will write a program.'), toolUse('toolu_run', 'run_code', { code })]), reply([text('four hits')])]);
    const { next } = await loop(api, host);

    expect(next.content).toEqual([text('four hits')]);
    const [first, second] = api.requests;
    expect(first!.body.tools).toEqual(toAnthropicTools(host));
    const runCodeTool = (first!.body.tools as { name: string; description: string }[]).find((t) => t.name === 'run_code');
    expect(runCodeTool?.description).toContain('lookup(args');
    const results = toolResultsOf(second);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ tool_use_id: 'toolu_run' });
    expect(results[0]!.is_error).toBeUndefined();
    const shown = (results[0]!.content as { type: string; text: string }[]).map((b) => b.text).join('\n');
    expect(shown).toContain('alpha-2');
    expect(shown).toContain('beta-1');
    // The assistant turn goes back as it came, and the program's children are in the trace.
    expect(second!.body.messages[1]).toEqual({ role: 'assistant', content: [text('I will write a program.'), toolUse('toolu_run', 'run_code', { code })] });
    expect(events.filter((e) => e.type === 'tool/call' && e.origin.kind === 'ptc').map((e) => (e as { toolName: string }).toolName)).toEqual(['lookup', 'lookup']);
  });

  it('runs the blocks of one reply under the turn\'s scheduling rules and answers them in tool_use order', async () => {
    const { host, log } = testHost();
    const api = fakeAnthropic([
      reply([
        toolUse('toolu_a', 'lookup', { q: 'slow', ms: 40 }),
        toolUse('toolu_b', 'lookup', { q: 'fast', ms: 1 }),
        toolUse('toolu_w', 'write_note', { note: 'n1' }),
        toolUse('toolu_c', 'lookup', { q: 'after', ms: 0 }),
      ]),
      reply([text('ok')]),
    ]);
    await loop(api, host);
    // The two lookups overlap (fast ends first); the write waits for both and nothing starts during it.
    expect(log).toEqual(['start slow', 'start fast', 'end fast', 'end slow', 'start write n1', 'end write n1', 'start after', 'end after']);
    const results = toolResultsOf(api.requests[1]);
    expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_a', 'toolu_b', 'toolu_w', 'toolu_c']);
    expect(results.map((r) => (r.content as { text: string }[])[0]!.text)).toEqual([
      expect.stringContaining('"slow-1"'),
      expect.stringContaining('"fast-1"'),
      'wrote n1',
      expect.stringContaining('"after-1"'),
    ]);
  });

  it('answers a guard\'s denial, a tool\'s error and an unanswered ask with is_error and our text; nothing of them ran', async () => {
    const { host, log, events } = testHost();
    const api = fakeAnthropic([
      reply([toolUse('toolu_d', 'lookup', { q: 'secret' }), toolUse('toolu_f', 'fail', { message: 'disk on fire' }), toolUse('toolu_ask', 'deploy', { env: 'prod' })]),
      reply([text('ok')]),
    ]);
    await loop(api, host);
    expect(toolResultsOf(api.requests[1])).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_d', content: [{ type: 'text', text: expect.stringContaining('secret terms are off limits') }], is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_f', content: [{ type: 'text', text: '"fail" failed: disk on fire' }], is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_ask', content: [{ type: 'text', text: expect.stringMatching(/unavailable: no approval channel to ask \(deploys need a person\)/) }], is_error: true },
    ]);
    expect(log).toEqual([]);
    expect(resultOf(events, 'toolu_d')?.denied).toEqual({ by: 'guard', reason: 'secret terms are off limits', index: 0 });
    expect(resultOf(events, 'toolu_ask')?.denied?.by).toBe('approval');
  });

  it('runs an ask the host\'s approval channel allowed, once, for the agent given', async () => {
    const asked: { callId: string; agent?: string }[] = [];
    const { host, log } = testHost({ approval: { request: async ({ execution }) => (asked.push({ callId: execution.callId, agent: execution.agent?.id }), 'allow-once') } });
    const api = fakeAnthropic([reply([toolUse('toolu_ok', 'deploy', { env: 'prod' })]), reply([text('deployed')])]);
    await loop(api, host);
    expect(asked).toEqual([{ callId: 'toolu_ok', agent: 'claude-agent' }]);
    expect(log).toEqual(['deploy prod']);
    expect(toolResultsOf(api.requests[1])).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_ok', content: [{ type: 'text', text: 'deployed prod' }] }]);
  });

  it('refuses invalid input in our pipeline, naming each argument path (no strict schema on the API side)', async () => {
    const { host, log, events } = testHost();
    const definitions = toAnthropicTools(host);
    expect(definitions.some((d) => 'strict' in d)).toBe(false);
    const api = fakeAnthropic([reply([toolUse('toolu_bad', 'lookup', { q: 5, ms: -1 })]), reply([text('ok')])]);
    await loop(api, host);
    const [result] = toolResultsOf(api.requests[1]);
    expect(result!.is_error).toBe(true);
    expect((result!.content as { text: string }[])[0]!.text).toMatch(/^Invalid arguments for "lookup": args\.q: .*\n?.*args\.ms/s);
    expect(callOf(events, 'toolu_bad')).toMatchObject({ argsValid: false, args: { q: 5, ms: -1 } });
    expect(log).toEqual([]);
  });

  it('brings additional contexts to the model as text blocks after the content, and images as image blocks', async () => {
    const { host } = testHost();
    const api = fakeAnthropic([reply([toolUse('toolu_ctx', 'lookup', { q: 'ctx' }), toolUse('toolu_img', 'chart', {})]), reply([text('ok')])]);
    await loop(api, host);
    const [ctx, img] = toolResultsOf(api.requests[1]);
    expect(ctx!.content).toEqual([{ type: 'text', text: expect.stringContaining('"ctx-2"') }, { type: 'text', text: 'ctx results are a day old' }]);
    expect(img!.content).toEqual([{ type: 'text', text: 'the chart:' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }]);
  });

  it('passes the loop\'s abort signal to the running tool; the call is recorded as aborted', async () => {
    const { host, log, events } = testHost();
    const api = fakeAnthropic([reply([toolUse('toolu_wait', 'wait', {})]), reply([text('never sent')])]);
    const controller = new AbortController();
    const first = await api.client.messages.create({ model: MODEL, max_tokens: 1024, tools: toAnthropicTools(host), messages: [{ role: 'user', content: 'go' }] });
    const running = runToolUses(host, first, { agent: AGENT, signal: controller.signal });
    for (let i = 0; i < 500 && !log.includes('waiting'); i++) await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error('user pressed stop'));
    const [result] = await running;
    expect(log).toEqual(['waiting', 'aborted: user pressed stop']);
    expect(result!.is_error).toBe(true);
    expect(resultOf(events, 'toolu_wait')?.error?.kind).toBe('aborted');
  });
});

describe('when Claude\'s program in Anthropic\'s code execution tool calls our tools', () => {
  const codeExecutionTool: ToolUnion = { type: 'code_execution_20260120', name: 'code_execution' };
  const program = reply(
    [
      text('Let me write some code.'),
      codeExecution('srvtoolu_01prog', 'hits = [await lookup(q=t) for t in ["alpha", "beta"]]\nprint(hits)'),
      toolUse('toolu_p1', 'lookup', { q: 'alpha' }, FROM_PROGRAM),
      toolUse('toolu_p2', 'chart', {}, FROM_PROGRAM),
    ],
    { containerId: 'container_011abc' },
  );
  const done = reply([codeExecutionResult('srvtoolu_01prog', "[{'q': 'alpha'}]"), text('alpha has two hits.')]);

  it('offers the tools to the program, records its calls as the provider program\'s, answers with text only, and the reply carries the container', async () => {
    const { host, events } = testHost();
    const api = fakeAnthropic([program, done]);
    const tools = [codeExecutionTool, ...toAnthropicTools(host, { include: ['lookup', 'chart'], providerCodeExecution: true })];
    await loop(api, host, { tools });

    const [first, second] = api.requests;
    expect(first!.body.tools).toEqual([
      { type: 'code_execution_20260120', name: 'code_execution' },
      expect.objectContaining({ name: 'lookup', allowed_callers: ['direct', 'code_execution_20260120'] }),
      expect.objectContaining({ name: 'chart', allowed_callers: ['direct', 'code_execution_20260120'] }),
    ]);
    expect(second!.body.container).toBe('container_011abc');
    // Only tool_result blocks answer a program's calls, each a string: the program reads text.
    const results = toolResultsOf(second);
    expect(second!.body.messages.at(-1)!.content).toEqual(results);
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_p1', content: JSON.stringify({ q: 'alpha', hits: ['alpha-1', 'alpha-2'] }, null, 2) },
      { type: 'tool_result', tool_use_id: 'toolu_p2', content: 'the chart:\n\n[image: image/png]' },
    ]);
    const origin = { kind: 'provider-program', provider: 'anthropic', callerId: 'srvtoolu_01prog' };
    expect(callOf(events, 'toolu_p1')?.origin).toEqual(origin);
    expect(callOf(events, 'toolu_p2')?.origin).toEqual(origin);
    // The server tool's own blocks are Anthropic's to run: no call, no result for them.
    expect(events.some((e) => 'callId' in e && e.callId === 'srvtoolu_01prog')).toBe(false);
  });

  it('lets policy tell the program from Claude: a guard on provider programs denies only the program\'s call', async () => {
    const { host, log } = testHost();
    host.hooks.guard((e) => (e.origin.kind === 'provider-program' && e.toolName === 'lookup' ? 'lookups from hosted programs are off' : undefined));
    const api = fakeAnthropic([reply([toolUse('toolu_direct', 'lookup', { q: 'mine' }), codeExecution('srvtoolu_01prog', 'await lookup(q="theirs")'), toolUse('toolu_prog', 'lookup', { q: 'theirs' }, FROM_PROGRAM)], { containerId: 'container_2' }), done]);
    await loop(api, host, { tools: [codeExecutionTool, ...toAnthropicTools(host, { providerCodeExecution: true })] });
    const [direct, fromProgram] = toolResultsOf(api.requests[1]);
    expect(direct!.is_error).toBeUndefined();
    expect(fromProgram).toEqual({ type: 'tool_result', tool_use_id: 'toolu_prog', content: expect.stringContaining('lookups from hosted programs are off'), is_error: true });
    expect(log).toEqual(['start mine', 'end mine']);
  });

  it('is marked as the provider program\'s call in ptc trace show', async () => {
    const { host } = testHost();
    const path = join(mkdtempSync(join(tmpdir(), 'ptc-anthropic-trace-')), 'trace.jsonl');
    const sink = traceFileSink(path, { host });
    host.onEvent(sink);
    await loop(fakeAnthropic([program, done]), host, { tools: [codeExecutionTool, ...toAnthropicTools(host, { providerCodeExecution: true })] });
    sink.close();
    const shown = await captureCli(['trace', 'show', path, '--no-color']);
    expect(shown.code).toBe(0);
    const lines = shown.out.split('\n');
    expect(lines).toContain('lookup toolu_p1 [parallel] via anthropic code execution srvtoolu_01prog {"q":"alpha"}');
    expect(lines).toContain('chart toolu_p2 [exclusive] via anthropic code execution srvtoolu_01prog {}');
  });

  it('refuses a program\'s call whose caller names no code execution block of the same message; the body never runs (issue 24, finding 10)', async () => {
    const { host, log, events } = testHost();
    // Forged: a caller naming a program, but no server_tool_use or code execution result with that id here.
    const forged = reply([toolUse('toolu_forged', 'lookup', { q: 'forged' }, FROM_PROGRAM), codeExecution('srvtoolu_other', 'print(1)')]);
    const api = fakeAnthropic([forged, done]);
    await loop(api, host, { tools: [codeExecutionTool, ...toAnthropicTools(host, { providerCodeExecution: true })] });
    const [result] = toolResultsOf(api.requests[1]);
    expect(result).toEqual({ type: 'tool_result', tool_use_id: 'toolu_forged', content: expect.stringContaining('names "srvtoolu_01prog" as the code execution that made it, and this message has no code execution block with that id'), is_error: true });
    expect(log).toEqual([]);
    expect(resultOf(events, 'toolu_forged')?.error?.kind).toBe('invalid-call');
    expect(callOf(events, 'toolu_forged')?.origin).toEqual({ kind: 'provider-program', provider: 'anthropic', callerId: 'srvtoolu_01prog' });
    // A code execution result block of the same message names the program as well as its call.
    const { host: host2, log: log2 } = testHost();
    const content = [codeExecutionResult('srvtoolu_01prog', 'partial'), toolUse('toolu_ok', 'lookup', { q: 'ok' }, FROM_PROGRAM)];
    const [ok] = await runToolUses(host2, { content } as never, { agent: AGENT, tools: toAnthropicTools(host2, { providerCodeExecution: true }) });
    expect(ok!.is_error).toBeUndefined();
    expect(log2).toEqual(['start ok', 'end ok']);
  });

  it('refuses a program\'s call on a tool whose allowed_callers do not list its caller (or when no tools are given); the body never runs', async () => {
    const { host, log } = testHost();
    const content = [codeExecution('srvtoolu_01prog', 'x'), toolUse('toolu_a', 'lookup', { q: 'a' }, FROM_PROGRAM), toolUse('toolu_b', 'deploy', { env: 'prod' }, FROM_PROGRAM)];
    // lookup is offered to programs; deploy is offered to Claude only.
    const tools = [...toAnthropicTools(host, { include: ['lookup'], providerCodeExecution: true }), ...toAnthropicTools(host, { include: ['deploy'] })];
    const [a, b] = await runToolUses(host, { content } as never, { agent: AGENT, tools });
    expect(a!.is_error).toBeUndefined();
    expect(b).toEqual({ type: 'tool_result', tool_use_id: 'toolu_b', content: expect.stringContaining('comes from "code_execution_20260120", which the tool does not allow (its allowed_callers as sent: direct only)'), is_error: true });
    const [none] = await runToolUses(host, { content: [content[0], toolUse('toolu_c', 'lookup', { q: 'c' }, FROM_PROGRAM)] } as never, { agent: AGENT });
    expect(none!.is_error).toBe(true);
    const older = { type: 'code_execution_20250825', tool_id: 'srvtoolu_01prog' } as unknown as typeof FROM_PROGRAM;
    const [version] = await runToolUses(host, { content: [content[0], toolUse('toolu_d', 'lookup', { q: 'd' }, older)] } as never, { agent: AGENT, tools });
    expect(version!.content).toEqual(expect.stringContaining('comes from "code_execution_20250825", which the tool does not allow (its allowed_callers as sent: direct, code_execution_20260120)'));
    expect(log).toEqual(['start a', 'end a']);
  });

  it('refuses a call whose caller is not direct and names no program, and records it; it is never taken as Claude\'s own', async () => {
    const { host, log, events } = testHost();
    const broken = { type: 'code_execution_20260120' } as unknown as typeof FROM_PROGRAM;
    const api = fakeAnthropic([reply([toolUse('toolu_nocaller', 'lookup', { q: 'x' }, broken)]), done]);
    await loop(api, host);
    const [result] = toolResultsOf(api.requests[1]);
    expect(result).toEqual({ type: 'tool_result', tool_use_id: 'toolu_nocaller', content: expect.stringContaining('malformed origin'), is_error: true });
    expect(resultOf(events, 'toolu_nocaller')?.error?.kind).toBe('invalid-call');
    expect(log).toEqual([]);
  });
});

describe('when a reply holds blocks that are not ours, or malformed ones', () => {
  it('answers only our tool_use blocks: text, thinking, server tools\' blocks and toolset members get nothing', async () => {
    const { host, events } = testHost();
    const content = [
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      text('checking'),
      codeExecution('srvtoolu_x', 'print(1)'),
      codeExecutionResult('srvtoolu_x', '1'),
      { type: 'tool_use', id: 'toolu_browser', name: 'lookup', input: { q: 'page' }, caller: { type: 'direct' }, toolset_name: 'browser' },
      toolUse('toolu_ours', 'lookup', { q: 'ours' }),
    ];
    const results = await runToolUses(host, { content } as never, { agent: AGENT });
    expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_ours']);
    expect(events.filter((e) => e.type === 'tool/call').map((e) => (e as { callId: string }).callId)).toEqual(['toolu_ours']);
  });

  it('answers a tool_use without an id, and one with an id used twice, with error results the host recorded', async () => {
    const { host, log, events } = testHost();
    const content = [{ type: 'tool_use', name: 'lookup', input: { q: 'noid' } }, toolUse('toolu_same', 'lookup', { q: 'one' }), toolUse('toolu_same', 'lookup', { q: 'two' }, FROM_PROGRAM)];
    const results = await runToolUses(host, { content } as never, { agent: AGENT });
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: '', content: [{ type: 'text', text: expect.stringContaining('has no id') }], is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_same', content: [{ type: 'text', text: expect.stringContaining('"one-1"') }] },
      { type: 'tool_result', tool_use_id: 'toolu_same', content: expect.stringContaining('reuses the id "toolu_same"'), is_error: true },
    ]);
    expect(log).toEqual(['start one', 'end one']);
    // The first call keeps its own (direct) origin: the second block's caller is not attached to it.
    expect(callOf(events, 'toolu_same')?.origin).toEqual({ kind: 'model' });
    expect(events.filter((e) => e.type === 'tool/result').map((e) => (e as { callId: string }).callId).sort()).toEqual(['', 'toolu_same', 'toolu_same#2']);
  });

  it('never throws for a hostile block, and refuses a message without content', async () => {
    const { host, events } = testHost();
    const hostile = { type: 'tool_use', id: 'toolu_h', name: 'lookup', input: { q: 'h' }, get caller() { throw new Error('boom'); } };
    const results = await runToolUses(host, { content: [hostile, null, 7, 'text'] } as never, { agent: AGENT });
    expect(results).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_h', content: expect.stringContaining('malformed origin'), is_error: true }]);
    expect(resultOf(events, 'toolu_h')?.error?.kind).toBe('invalid-call');
    await expect(runToolUses(host, { content: 'just text' }, {})).resolves.toEqual([]);
    await expect(runToolUses(host, { content: null } as never)).rejects.toThrow(/message\.content must be an array of content blocks, got null/);
    await expect(runToolUses(host, null as never)).rejects.toThrow(/message must be a Message, got null/);
  });
});

describe('when the SDK\'s own loop runs our tools (client.beta.messages.toolRunner)', () => {
  it('runs them through the pipeline: the result, our exact error content via ToolError, a program\'s call as text', async () => {
    const { host, events } = testHost();
    const api = fakeAnthropic([
      reply([toolUse('toolu_r1', 'lookup', { q: 'run' }), toolUse('toolu_r2', 'fail', { message: 'quota exceeded' }), toolUse('toolu_r3', 'lookup', { q: 'prog' }, FROM_PROGRAM)], { containerId: 'container_r' }),
      reply([text('done')]),
    ]);
    const runner = api.client.beta.messages.toolRunner({
      model: MODEL,
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'go' }],
      tools: toAnthropicRunnableTools(host, { agent: AGENT, providerCodeExecution: true }),
    });
    const final = await runner.runUntilDone();
    expect(final.content).toEqual([text('done')]);
    expect(api.requests[1]!.body.container).toBe('container_r');
    expect(api.requests[0]!.body.tools).toEqual(toAnthropicTools(host, { providerCodeExecution: true }).map((t) => ({ type: 'custom', ...t })));
    expect(toolResultsOf(api.requests[1])).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_r1', content: [{ type: 'text', text: expect.stringContaining('"run-2"') }] },
      { type: 'tool_result', tool_use_id: 'toolu_r2', content: [{ type: 'text', text: '"fail" failed: quota exceeded' }], is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_r3', content: expect.stringContaining('"prog-1"') },
    ]);
    expect(callOf(events, 'toolu_r1')?.origin).toEqual({ kind: 'model' });
    expect(callOf(events, 'toolu_r3')?.origin).toEqual({ kind: 'provider-program', provider: 'anthropic', callerId: 'srvtoolu_01prog' });
    expect(callOf(events, 'toolu_r1')?.agent).toEqual(AGENT);
  });

  it('refuses a program\'s call on a tool whose allowed_callers do not list its caller; the body never runs (issue 24, finding 10)', async () => {
    const { host, log, events } = testHost();
    const api = fakeAnthropic([reply([toolUse('toolu_x', 'lookup', { q: 'sneaky' }, FROM_PROGRAM)], { containerId: 'container_x' }), reply([text('done')])]);
    await api.client.beta.messages.toolRunner({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'go' }], tools: toAnthropicRunnableTools(host, { agent: AGENT }) }).runUntilDone();
    const [result] = toolResultsOf(api.requests[1]);
    expect(result).toMatchObject({ tool_use_id: 'toolu_x', is_error: true });
    expect(JSON.stringify(result!.content)).toContain('which the tool does not allow');
    expect(log).toEqual([]);
    expect(resultOf(events, 'toolu_x')?.error?.kind).toBe('invalid-call');
  });

  it('keeps an exclusive call a barrier among the calls the runner starts at once', async () => {
    const { host, log } = testHost();
    const api = fakeAnthropic([
      reply([toolUse('toolu_a', 'lookup', { q: 'slow', ms: 40 }), toolUse('toolu_w', 'write_note', { note: 'n1' }), toolUse('toolu_b', 'lookup', { q: 'after', ms: 0 })]),
      reply([text('done')]),
    ]);
    await api.client.beta.messages.toolRunner({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'go' }], tools: toAnthropicRunnableTools(host, { agent: AGENT }) }).runUntilDone();
    expect(log).toEqual(['start slow', 'end slow', 'start write n1', 'end write n1', 'start after', 'end after']);
    expect(toolResultsOf(api.requests[1]).map((r) => r.tool_use_id)).toEqual(['toolu_a', 'toolu_w', 'toolu_b']);
  });
});
