/**
 * Runner-level test kit: limits, a small echo GuestBridge, and helpers that run a program and
 * check the runner is still healthy. Used by the isolate and sandbox-process runner tests.
 */
import type { GuestBridge, GuestCallOutcome, ProgramRunner, RunLimits, RunOutcome } from '../runtime/program-runner.js';

/** Limits small enough for tests, large enough for ordinary programs. */
export function testLimits(overrides: Partial<RunLimits> = {}): RunLimits {
  return {
    memoryMb: 64,
    cpuMs: 2_000,
    wallMs: 10_000,
    maxCalls: 10_000,
    maxInFlight: 64,
    maxOutputBytes: 64 * 1024,
    maxLogBytes: 64 * 1024,
    maxArgBytes: 64 * 1024,
    maxArgDepth: 32,
    maxArgNodes: 10_000,
    maxResultBytes: 256 * 1024,
    rssMb: 512,
    hostMs: 10_000,
    approvalWaitMs: 60_000,
    ...overrides,
  };
}

/** What the echo bridge saw. */
export interface BridgeRecord {
  readonly calls: { name: string; argsJson: string }[];
  readonly logs: { level: string; text: string }[];
  inFlight: number;
  maxInFlight: number;
}

/**
 * Tools: `echo` returns its args; `wait` waits `args.ms` then returns `args`; `fail` fails with
 * `args.message`; `big` returns a string of `args.bytes` characters; `leak` returns an object
 * whose JSON has `__proto__` and `constructor` keys; `#sleep` (the program's `sleep`) waits `args.ms`.
 * Unknown names fail like the bridge would.
 */
export function echoBridge(): { bridge: GuestBridge; record: BridgeRecord } {
  const record: BridgeRecord = { calls: [], logs: [], inFlight: 0, maxInFlight: 0 };
  const bridge: GuestBridge = {
    async call(name, argsJson): Promise<GuestCallOutcome> {
      record.calls.push({ name, argsJson });
      record.inFlight++;
      record.maxInFlight = Math.max(record.maxInFlight, record.inFlight);
      try {
        const args = JSON.parse(argsJson) as Record<string, unknown>;
        switch (name) {
          case 'echo':
            return { ok: true, json: argsJson };
          case 'wait':
            await new Promise((r) => setTimeout(r, Number(args?.ms ?? 1)));
            return { ok: true, json: argsJson };
          case 'fail':
            return { ok: false, toolName: 'fail', message: String(args?.message ?? 'failed') };
          case 'big':
            return { ok: true, json: JSON.stringify('x'.repeat(Number(args?.bytes ?? 0))) };
          case '#sleep': // the program's sleep(ms), as the run bridge settles it (bridge/run-sleeps.ts)
            await new Promise((r) => setTimeout(r, Math.min(Number(args?.ms ?? 0), 10_000)));
            return { ok: true, json: 'null' };
          case 'leak':
            return { ok: true, json: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"fn":"x"}' };
          default:
            return { ok: false, toolName: name, message: `Unknown tool "${name}".` };
        }
      } finally {
        record.inFlight--;
      }
    },
    log(level, text) {
      record.logs.push({ level, text });
    },
  };
  return { bridge, record };
}

export const TOOL_NAMES = ['echo', 'wait', 'fail', 'big', 'leak'] as const;

/** Runs `js` with the echo bridge. */
export async function runProgram(
  runner: ProgramRunner,
  js: string,
  options: { limits?: Partial<RunLimits>; signal?: AbortSignal; toolNames?: readonly string[]; lineOffset?: number; group?: string } = {},
): Promise<{ outcome: RunOutcome; record: BridgeRecord; value: unknown }> {
  const { bridge, record } = echoBridge();
  const outcome = await runner.run(
    { js, toolNames: options.toolNames ?? TOOL_NAMES, limits: testLimits(options.limits), lineOffset: options.lineOffset, ...(options.group !== undefined ? { group: options.group } : {}) },
    bridge,
    options.signal ?? new AbortController().signal,
  );
  const value = outcome.ok ? JSON.parse(outcome.resultJson) : undefined;
  return { outcome, record, value };
}

/** Asserts (by throwing) that the runner still runs a trivial program with a tool call. */
export async function assertHealthy(runner: ProgramRunner): Promise<void> {
  const { outcome, value } = await runProgram(runner, 'const r = await tools.echo({ n: 41 }); return r.n + 1;');
  if (!outcome.ok || value !== 42) throw new Error(`runner is not healthy after the test: ${JSON.stringify(outcome)}`);
  if (typeof process.memoryUsage().rss !== 'number') throw new Error('host process is not healthy');
}

/** The failure of an outcome, or a thrown error when the run succeeded. */
export function failureOf(outcome: RunOutcome) {
  if (outcome.ok) throw new Error(`expected the run to fail, it returned ${outcome.resultJson.slice(0, 200)}`);
  return outcome.failure;
}
