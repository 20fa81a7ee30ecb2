/**
 * Behaviour every framework adapter must have (ptc-runtime/ai-sdk, /openai-agents, /anthropic,
 * /langchain), whatever the framework: the same scripted scenarios, each driven through the
 * framework's own loop and test utilities by a small driver. The host, its tools and its policy
 * are the contract's; the driver only plays the model.
 *
 * To register an adapter: write an {@link AdapterDriver} whose `run` scripts the framework's
 * model to make `calls` in one step (with exactly those ids) and then answer with text, runs the
 * framework's loop over the adapter's tools, and reports what the model was shown next
 * ({@link TurnOutcome}); then call `describeAdapterContract(label, driver, traits)` from a test
 * file. Allowed differences between frameworks are the typed {@link AdapterTraits}, nothing else.
 *
 * Every scenario checks its claim on three sides: what the model read (the framework's next
 * prompt), what the tool body did (spies), and what the host recorded (events), so an adapter
 * that skips the pipeline, validates by itself, swaps call ids or swallows a context fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRunCodeTool } from '../runtime/index.js';
import { createToolHost, decision, defineTool, type AgentRef, type ApprovalChannel, type JsonValue, type ToolEvent, type ToolHost } from '../tools/index.js';
import { lookupHits, lookupTool } from './support/lookup-tool.js';

/** One call the scripted model makes. */
export interface ScriptedCall {
  readonly id: string;
  readonly name: string;
  readonly args: JsonValue;
}

/** What the model read for one call in the prompt after it. */
export interface SeenResult {
  /** The framework's plain result, its error form, or its denied form. */
  readonly form: 'result' | 'error' | 'denied';
  /** Every piece of text the model reads for the call, joined by newlines. */
  readonly text: string;
}

/** What one run of the framework's loop showed. */
export interface TurnOutcome {
  /** By call id: what the model's next prompt carried for each call (absent: not shown yet). */
  readonly seen: ReadonlyMap<string, SeenResult>;
  /**
   * By call id: the output the app reads from the framework for a call that ran (the canonical
   * value on success, where the framework gives the app one; see `exposesValue`).
   */
  readonly outputs: ReadonlyMap<string, unknown>;
  /** Call ids the framework paused on for a person's approval (`approval: 'framework'`). */
  readonly pendingApprovals: readonly string[];
  /**
   * Answers the pending approvals (true: approve this one call) and continues the loop, the
   * model then answering with text. Set when `pendingApprovals` is not empty.
   */
  readonly resume?: (answers: ReadonlyMap<string, boolean>) => Promise<TurnOutcome>;
}

/** Options of one run. */
export interface RunOptions {
  readonly host: ToolHost;
  readonly calls: readonly ScriptedCall[];
  readonly agent: AgentRef;
  /** Passed to the adapter; `'framework'` only for drivers whose traits say `frameworkApproval`. */
  readonly approval: 'host' | 'framework';
  /** The framework's own abort signal for the run (generateText's `abortSignal`, ...). */
  readonly signal?: AbortSignal;
}

/** Drives one framework's loop over one adapter. */
export interface AdapterDriver {
  /** One model step making `calls`, the tools run by the framework, then the model asked again. */
  run(options: RunOptions): Promise<TurnOutcome>;
}

/** How a framework may differ where the contract allows it. */
export interface AdapterTraits {
  /**
   * The framework has a denied form for a tool result (AI SDK `execution-denied`). Without one,
   * a denial reaches the model as the error form, carrying the reason.
   */
  readonly deniedForm: boolean;
  /** The framework can pause its loop for a person's approval of one call (`approval: 'framework'`). */
  readonly frameworkApproval: boolean;
  /** Aborting the framework's signal makes its run reject (AI SDK generateText) rather than resolve. */
  readonly abortRejects: boolean;
  /** `outputs` carries the canonical value of a successful call (false: the framework gives the app none). */
  readonly exposesValue: boolean;
}

/** The contract's host: tools with spies, the policy, and every event. */
export interface ContractHost {
  readonly host: ToolHost;
  readonly events: ToolEvent[];
  /** How often each tool body ran. */
  readonly runs: Record<'lookup' | 'deploy' | 'fail' | 'wait' | 'note', number>;
  /** `start <id>` / `end <id>` of the bodies of `lookup` (with `q: 'slow...'`) and `note`, in order. */
  readonly timeline: string[];
  /** The signal each `wait` body got. */
  readonly waitSignals: AbortSignal[];
  close(): Promise<void>;
}

const AGENT: AgentRef = Object.freeze({ id: 'contract-agent' });

/**
 * - `lookup({ q, limit? })`: parallel-safe, value `{ q, hits }`, rendered as one line (so the
 *   model's text differs from the value); `q: 'secret'` is denied by a guard; `q: 'ctx'` gets an
 *   additional context.
 * - `deploy({ env })`: a listener asks a person.
 * - `fail({ message })`: throws its message.
 * - `wait()`: waits for its signal.
 * - `note({ text })`: exclusive (it writes), takes 30 ms; `lookup({ q: 'slow...' })` takes 30 ms
 *   too; both log their start and end in `timeline`.
 * - `run_code` (real isolate, real type check), when `runCode` is set, with `spill_read` beside
 *   it (`maxOutputBytes` sets its cap).
 */
export function contractHost(options: { approval?: ApprovalChannel; runCode?: boolean; maxOutputBytes?: number } = {}): ContractHost {
  const events: ToolEvent[] = [];
  const host = createToolHost({ ...(options.approval ? { approval: options.approval } : {}), onEvent: (e) => events.push(e) });
  const runs = { lookup: 0, deploy: 0, fail: 0, wait: 0, note: 0 };
  const waitSignals: AbortSignal[] = [];
  const timeline: string[] = [];
  const timed = async <T>(label: string, body: () => T): Promise<T> => {
    timeline.push(`start ${label}`);
    await new Promise((r) => setTimeout(r, 30));
    timeline.push(`end ${label}`);
    return body();
  };
  host.register([
    lookupTool(async (args) => {
      runs.lookup++;
      const value = () => lookupHits(args);
      return args.q.startsWith('slow') ? timed(args.q, value) : value();
    }),
    defineTool({ name: 'deploy', description: 'Deploys.', parameters: { env: { type: 'string', required: true } }, execute: (args) => (runs.deploy++, { deployed: args.env }) }),
    defineTool({ name: 'note', description: 'Writes a note.', parameters: { text: { type: 'string', required: true } }, execute: (args) => (runs.note++, timed(`note ${args.text}`, () => ({ saved: args.text }))) }),
    defineTool({ name: 'fail', description: 'Fails.', parameters: { message: { type: 'string', required: true } }, execute: (args) => { runs.fail++; throw new Error(args.message); } }),
    defineTool({
      name: 'wait',
      description: 'Waits until cancelled.',
      execute: (_args, exec) => {
        runs.wait++;
        waitSignals.push(exec.signal);
        return new Promise<string>((resolve) => exec.signal.addEventListener('abort', () => resolve('stopped'), { once: true }));
      },
    }),
  ]);
  host.hooks.preExecute((e) => (e.toolName === 'deploy' ? decision.ask('deploys need a person') : undefined));
  host.hooks.preExecute((e) => (e.toolName === 'lookup' && (e.args as { q: string }).q === 'ctx' ? decision.allow({ additionalContext: 'remember: ctx results are cached' }) : undefined));
  host.hooks.guard((e) => (e.toolName === 'lookup' && (e.args as { q: string }).q === 'secret' ? 'secret terms are off limits' : undefined));
  const runCode = options.runCode ? createRunCodeTool({ host, isolation: 'isolate', limits: { wallMs: 30_000, ...(options.maxOutputBytes ? { maxOutputBytes: options.maxOutputBytes } : {}) } }) : undefined;
  if (runCode) host.register(runCode);
  return { host, events, runs, waitSignals, timeline, close: async () => void (await runCode?.close()) };
}

const eventsOf = (events: readonly ToolEvent[], callId: string) => events.filter((e) => 'callId' in e && e.callId === callId);
const resultEvent = (events: readonly ToolEvent[], callId: string) => events.find((e) => e.type === 'tool/result' && e.callId === callId) as Extract<ToolEvent, { type: 'tool/result' }> | undefined;

/** Registers the shared adapter behaviour under `label`. */
export function describeAdapterContract(label: string, driver: AdapterDriver, traits: AdapterTraits): void {
  const deniedForm = traits.deniedForm ? 'denied' : 'error';
  describe(label, () => {
    const open: ContractHost[] = [];
    const setup = (options?: Parameters<typeof contractHost>[0]) => {
      const h = contractHost(options);
      open.push(h);
      return h;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((h) => h.close()));
    });
    const run = (h: ContractHost, calls: readonly ScriptedCall[], extra: Partial<RunOptions> = {}) => driver.run({ host: h.host, calls, agent: AGENT, approval: 'host', ...extra });
    const seenOf = (outcome: TurnOutcome, id: string): SeenResult => {
      const seen = outcome.seen.get(id);
      if (!seen) throw new Error(`the model's next prompt has nothing for call ${id} (it has: ${[...outcome.seen.keys()].join(', ') || 'nothing'})`);
      return seen;
    };

    it('puts a program\'s result in the model\'s next prompt; its calls run through the pipeline as its children', async () => {
      const h = setup({ runCode: true });
      const code = 'const a = await tools.lookup({ q: "alpha" }); const b = await tools.lookup({ q: "beta", limit: 1 }); return { hits: [...a.hits, ...b.hits] };';
      const outcome = await run(h, [{ id: 'call-run', name: 'run_code', args: { code } }]);
      const seen = seenOf(outcome, 'call-run');
      expect(seen.form).toBe('result');
      expect(seen.text).toContain('alpha-2');
      expect(seen.text).toContain('beta-1');
      const children = h.events.filter((e) => e.type === 'tool/call' && e.origin.kind === 'ptc');
      expect(children.map((e) => (e.type === 'tool/call' && e.origin.kind === 'ptc' ? e.origin.parentCallId : ''))).toEqual(['call-run', 'call-run']);
      const value = resultEvent(h.events, 'call-run')?.value as { result: unknown } | undefined;
      expect(value?.result).toEqual({ hits: ['alpha-1', 'alpha-2', 'beta-1'] });
      if (traits.exposesValue) expect(outcome.outputs.get('call-run')).toEqual(value);
    });

    it('carries spill_read beside run_code: the model pages through its spilled output, as its agent', async () => {
      const h = setup({ runCode: true, maxOutputBytes: 600 });
      const first = await run(h, [{ id: 'call-big', name: 'run_code', args: { code: 'return Array.from({ length: 200 }, (_, i) => "row " + i);' } }]);
      expect(seenOf(first, 'call-big').text).toContain('spilled');
      const { id } = (resultEvent(h.events, 'call-big')?.value as { result: { spilled: { id: string } } }).result.spilled;
      const second = await run(h, [{ id: 'call-page', name: 'spill_read', args: { id, offset: 0 } }]);
      const seen = seenOf(second, 'call-page');
      expect(seen.form).toBe('result');
      expect(seen.text).toContain('["row 0","row 1",');
      expect(seen.text).toMatch(/next page: offset \d+/);
      expect(Buffer.byteLength(seen.text, 'utf8')).toBeLessThanOrEqual(600);
      expect(h.events.find((e) => e.type === 'tool/call' && e.callId === 'call-page')).toMatchObject({ agent: AGENT });
    });

    it('uses the framework\'s call id as ours, in every event of the call', async () => {
      const h = setup();
      const outcome = await run(h, [{ id: 'fw-id-7', name: 'lookup', args: { q: 'alpha' } }]);
      expect(seenOf(outcome, 'fw-id-7').form).toBe('result');
      expect(eventsOf(h.events, 'fw-id-7').map((e) => e.type)).toEqual(['tool/call', 'tool/decision', 'tool/result']);
      expect(h.events.filter((e) => e.type === 'tool/call').map((e) => (e.type === 'tool/call' ? e.callId : ''))).toEqual(['fw-id-7']);
    });

    it('shows the model our rendered content, and the app the canonical value', async () => {
      const h = setup();
      const outcome = await run(h, [{ id: 'c1', name: 'lookup', args: { q: 'alpha' } }]);
      expect(seenOf(outcome, 'c1')).toEqual({ form: 'result', text: 'lookup "alpha": alpha-1, alpha-2' });
      if (traits.exposesValue) expect(outcome.outputs.get('c1')).toEqual({ q: 'alpha', hits: ['alpha-1', 'alpha-2'] });
    });

    it('brings a guard\'s denial to the model with its reason, and the body never runs', async () => {
      const h = setup();
      const outcome = await run(h, [{ id: 'c-deny', name: 'lookup', args: { q: 'secret' } }]);
      const seen = seenOf(outcome, 'c-deny');
      expect(seen.form).toBe(deniedForm);
      expect(seen.text).toContain('secret terms are off limits');
      expect(h.runs.lookup).toBe(0);
      expect(resultEvent(h.events, 'c-deny')?.denied).toEqual({ by: 'guard', reason: 'secret terms are off limits', index: 0 });
    });

    it('fails an ask closed when nobody can answer it: denied as unavailable, the body never runs', async () => {
      const h = setup();
      const outcome = await run(h, [{ id: 'c-ask', name: 'deploy', args: { env: 'prod' } }]);
      const seen = seenOf(outcome, 'c-ask');
      expect(seen.form).toBe(deniedForm);
      expect(seen.text).toMatch(/unavailable: no approval channel to ask \(deploys need a person\)/);
      expect(h.runs.deploy).toBe(0);
    });

    it('runs an ask the host\'s channel approved, once', async () => {
      const asked: string[] = [];
      const h = setup({ approval: { request: async ({ execution }) => (asked.push(execution.callId), 'allow-once') } });
      const outcome = await run(h, [{ id: 'c-ok', name: 'deploy', args: { env: 'prod' } }]);
      expect(seenOf(outcome, 'c-ok').form).toBe('result');
      expect([asked, h.runs.deploy]).toEqual([['c-ok'], 1]);
    });

    it('shows a tool\'s own error message in the framework\'s error form', async () => {
      const h = setup();
      const outcome = await run(h, [{ id: 'c-fail', name: 'fail', args: { message: 'disk on fire' } }]);
      const seen = seenOf(outcome, 'c-fail');
      expect(seen.form).toBe('error');
      expect(seen.text).toBe('"fail" failed: disk on fire');
    });

    it('refuses invalid arguments in our pipeline, naming the argument; the framework validated nothing', async () => {
      const h = setup();
      const outcome = await run(h, [{ id: 'c-bad', name: 'lookup', args: { q: 5, limit: 0 } }]);
      const seen = seenOf(outcome, 'c-bad');
      expect(seen.form).toBe('error');
      expect(seen.text).toMatch(/^Invalid arguments for "lookup": args\.q: .*\n?.*args\.limit/s);
      // Our pipeline saw the arguments as the model sent them: the framework let them through.
      expect(h.events.find((e) => e.type === 'tool/call' && e.callId === 'c-bad')).toMatchObject({ argsValid: false, args: { q: 5, limit: 0 } });
      expect(h.runs.lookup).toBe(0);
    });

    it('keeps the results of two parallel calls of one step apart', async () => {
      const h = setup();
      const outcome = await run(h, [
        { id: 'p1', name: 'lookup', args: { q: 'alpha' } },
        { id: 'p2', name: 'lookup', args: { q: 'beta', limit: 3 } },
      ]);
      expect(seenOf(outcome, 'p1').text).toBe('lookup "alpha": alpha-1, alpha-2');
      expect(seenOf(outcome, 'p2').text).toBe('lookup "beta": beta-1, beta-2, beta-3');
      if (traits.exposesValue) {
        expect(outcome.outputs.get('p1')).toEqual({ q: 'alpha', hits: ['alpha-1', 'alpha-2'] });
        expect(outcome.outputs.get('p2')).toEqual({ q: 'beta', hits: ['beta-1', 'beta-2', 'beta-3'] });
      }
      expect(h.runs.lookup).toBe(2);
    });

    it('runs an exclusive call alone, as host.runTurn would: never beside the other calls of its step', async () => {
      const h = setup();
      const outcome = await run(h, [
        { id: 's1', name: 'lookup', args: { q: 'slow-a' } },
        { id: 's2', name: 'lookup', args: { q: 'slow-b' } },
        { id: 's3', name: 'note', args: { text: 'n1' } },
        { id: 's4', name: 'lookup', args: { q: 'slow-c' } },
      ]);
      // The two parallel-safe calls before the barrier overlap; the barrier waits for both, the call after it for the barrier.
      expect(h.timeline.slice(0, 2).sort()).toEqual(['start slow-a', 'start slow-b']);
      expect(h.timeline.slice(2, 4).sort()).toEqual(['end slow-a', 'end slow-b']);
      expect(h.timeline.slice(4)).toEqual(['start note n1', 'end note n1', 'start slow-c', 'end slow-c']);
      expect(['s1', 's2', 's3', 's4'].map((id) => seenOf(outcome, id).form)).toEqual(['result', 'result', 'result', 'result']);
      expect(seenOf(outcome, 's4').text).toBe('lookup "slow-c": slow-c-1, slow-c-2');
    });

    it('brings additional contexts to the model next to the result', async () => {
      const h = setup();
      const outcome = await run(h, [{ id: 'c-ctx', name: 'lookup', args: { q: 'ctx' } }]);
      const seen = seenOf(outcome, 'c-ctx');
      expect(seen.form).toBe('result');
      expect(seen.text).toBe('lookup "ctx": ctx-1, ctx-2\nremember: ctx results are cached');
    });

    it('passes the framework\'s abort to the running tool\'s signal', async () => {
      const h = setup();
      const controller = new AbortController();
      const running = run(h, [{ id: 'c-wait', name: 'wait', args: {} }], { signal: controller.signal });
      const settled = running.then(() => 'resolved', () => 'rejected');
      for (let i = 0; i < 500 && h.waitSignals.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
      expect(h.waitSignals).toHaveLength(1);
      expect(h.waitSignals[0]!.aborted).toBe(false);
      controller.abort(new Error('user pressed stop'));
      expect(await settled).toBe(traits.abortRejects ? 'rejected' : 'resolved');
      expect(h.waitSignals[0]!.aborted).toBe(true);
      expect(resultEvent(h.events, 'c-wait')?.error?.kind).toBe('aborted');
    });

    describe.runIf(traits.frameworkApproval)('with approval: \'framework\'', () => {
      const ask = (h: ContractHost) => run(h, [{ id: 'c-fw', name: 'deploy', args: { env: 'prod' } }], { approval: 'framework' });

      it('pauses on an ask without recording or running anything, and never asks the host\'s channel', async () => {
        const asked: string[] = [];
        const h = setup({ approval: { request: async ({ execution }) => (asked.push(execution.callId), 'allow-once') } });
        const outcome = await ask(h);
        expect(outcome.pendingApprovals).toEqual(['c-fw']);
        expect(outcome.seen.has('c-fw')).toBe(false);
        expect([h.runs.deploy, asked, eventsOf(h.events, 'c-fw')]).toEqual([0, [], []]);
      });

      it('runs an approved call once, recorded as approved in the framework, without asking the channel', async () => {
        const asked: string[] = [];
        const h = setup({ approval: { request: async ({ execution }) => (asked.push(execution.callId), 'allow-once') } });
        const paused = await ask(h);
        const resumed = await paused.resume!(new Map([['c-fw', true]]));
        expect(seenOf(resumed, 'c-fw').form).toBe('result');
        expect([h.runs.deploy, asked]).toEqual([1, []]);
        const approval = h.events.find((e) => e.type === 'tool/decision' && e.callId === 'c-fw' && e.stage === 'approval');
        expect(approval).toMatchObject({ decision: 'allow', by: { kind: 'approval', via: 'framework' } });
      });

      it('never runs a call the person rejected', async () => {
        const h = setup();
        const paused = await ask(h);
        const resumed = await paused.resume!(new Map([['c-fw', false]]));
        expect(seenOf(resumed, 'c-fw').form).toBe(deniedForm);
        expect(h.runs.deploy).toBe(0);
      });

      it('still denies an approved call that a guard added since then refuses, and records it', async () => {
        const h = setup();
        const paused = await ask(h);
        h.host.hooks.guard((e) => (e.toolName === 'deploy' ? 'deploys are frozen' : undefined));
        const resumed = await paused.resume!(new Map([['c-fw', true]]));
        const seen = seenOf(resumed, 'c-fw');
        expect(seen.form).toBe(deniedForm);
        expect(seen.text).toContain('deploys are frozen');
        expect(h.runs.deploy).toBe(0);
        expect(resultEvent(h.events, 'c-fw')?.denied).toMatchObject({ by: 'guard', reason: 'deploys are frozen' });
      });

      it('lets a call that does not ask run at once, in the same step as one that waits', async () => {
        const h = setup();
        const outcome = await run(h, [
          { id: 'c-now', name: 'lookup', args: { q: 'alpha' } },
          { id: 'c-fw', name: 'deploy', args: { env: 'prod' } },
        ], { approval: 'framework' });
        expect(outcome.pendingApprovals).toEqual(['c-fw']);
        expect([h.runs.lookup, h.runs.deploy]).toEqual([1, 0]);
        expect(resultEvent(h.events, 'c-now')?.isError).toBe(false);
      });
    });
  });
}
