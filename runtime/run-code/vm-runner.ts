/**
 * A `ProgramRunner` on `node:vm`: NO isolation (a `vm` context shares the host's heap and
 * event loop, and is escapable). It exists only as the floor in benchmarks, to show what the
 * isolate and the sandbox process cost, and is deliberately not exported from the package.
 * Never run untrusted code with it.
 */
import { createContext, Script } from 'node:vm';
import type { GuestBridge, ProgramRunner, RunOutcome, RunRequest } from '../program-runner.js';
import { errorText } from '../../tools/index.js';
import { SLEEP_CALL } from '../../codegen/index.js';

const WRAPPER_LINES = 1;

/** Creates the `node:vm` floor runner (benchmarks only). */
export function createVmRunnerForBenchmarks(): ProgramRunner {
  return {
    async run(request: RunRequest, bridge: GuestBridge, signal: AbortSignal): Promise<RunOutcome> {
      const started = performance.now();
      const cpu0 = process.cpuUsage();
      const done = (o: { ok: true; resultJson: string } | { ok: false; failure: Extract<RunOutcome, { ok: false }>['failure'] }): RunOutcome => {
        const cpu = process.cpuUsage(cpu0);
        return { ...o, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - started };
      };
      class ToolCallError extends Error {
        override readonly name = 'ToolCallError';
        constructor(
          readonly toolName: string,
          message: string,
        ) {
          super(message);
        }
      }
      const tools: Record<string, (args?: unknown) => Promise<unknown>> = Object.create(null);
      for (const name of request.toolNames) {
        tools[name] = async (args?: unknown) => {
          const outcome = await bridge.call(name, JSON.stringify(args ?? {}));
          if (!outcome.ok) throw new ToolCallError(outcome.toolName, outcome.message);
          return JSON.parse(outcome.json);
        };
      }
      const console = Object.fromEntries(
        (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) => [level, (...xs: unknown[]) => bridge.log(level, xs.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' '))]),
      );
      // `sleep` crosses as the guest's does: a call to its reserved name, settled by the bridge.
      const sleep = async (ms: number) => {
        const outcome = await bridge.call(SLEEP_CALL, JSON.stringify({ ms: Math.max(0, Math.min(ms, 1e300)) }));
        if (!outcome.ok) throw new Error(outcome.message);
      };
      const context = createContext({ tools: Object.freeze(tools), ToolCallError, console, sleep });
      let main: () => Promise<unknown>;
      try {
        main = new Script(`(async function () {\n${request.js}\n})`, { filename: 'program.js' }).runInContext(context) as () => Promise<unknown>;
      } catch (err) {
        return done({ ok: false, failure: { kind: 'thrown', message: String((err as Error)?.message ?? err) } });
      }
      const aborted = new Promise<'aborted'>((resolve) => {
        if (signal.aborted) resolve('aborted');
        else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
      });
      try {
        const value = await Promise.race([main(), aborted]);
        if (value === 'aborted' && signal.aborted) return done({ ok: false, failure: { kind: 'aborted', message: String((signal.reason as Error)?.message ?? 'aborted') } });
        return done({ ok: true, resultJson: JSON.stringify(value ?? null) ?? 'null' });
      } catch (err) {
        const m = /program\.js:(\d+):(\d+)/.exec(String((err as Error)?.stack ?? ''));
        return done({
          ok: false,
          failure: {
            kind: 'thrown',
            message: `${(err as Error)?.name ?? 'Error'}: ${errorText(err)}`,
            ...(m ? { line: Number(m[1]) - WRAPPER_LINES, column: Number(m[2]) } : {}),
          },
        });
      }
    },
    async close() {},
  };
}
