/**
 * One run of one program in one prepared isolate: the host half of the bootstrap's protocol.
 *
 * Why it is shaped this way:
 * - The guest never blocks on the host, and neither waits for the other. Its calls arrive batched
 *   (one fire-and-forget message per microtask turn); each goes to `bridge.call` at once. Outcomes
 *   ready together are pushed back in one fire-and-forget `entry('deliver', batch)`, so a
 *   sequential call costs one isolate task each way and `Promise.all` in the program really
 *   overlaps calls.
 * - CPU: the start runs under an isolated-vm timeout of the budget; code resumed by a delivered
 *   outcome runs outside any host apply, so a poll of `isolate.cpuTime` (every `cpuPollMs`)
 *   catches it and disposes the isolate. Together they stop a sync loop, `for(;;) await null`,
 *   and a loop that starts after a tool result.
 * - A program that is idle with no call pending can never resume (no timers in here): the host
 *   probes it when it goes quiet and ends the run instead of letting it hang to the deadline.
 * - A limit, an abort, or a disposal by isolated-vm (memory) settles the run exactly once, with
 *   a failure naming what happened; the isolate is then disposed. Nothing a program does makes
 *   `run` reject, and nothing that arrives after the run settled reaches the bridge (calls are
 *   reported through `onLateCall`).
 * - Messages are checked even though only the bootstrap can send them: the bootstrap runs in
 *   the same heap as hostile code, so the host treats what it sends as data to validate.
 */
import type { GuestBridge, GuestCallOutcome, RunFailure, RunRequest } from '../program-runner.js';
import { disposeQuietly, type PreparedIsolate } from './prepared-isolate.js';
import { OutcomeQueue, type OutcomeBatch } from './outcome-queue.js';
import { abortMessage, isCallId, overBytes, utf8Length } from './run-checks.js';
import { locateSyntaxError, programPosition } from './program-position.js';
import type { IsolateRunOutcome, LateCallAwareBridge, LateCallEvent, RunStartup } from './run-types.js';

const LOG_LEVELS = new Set(['log', 'info', 'warn', 'error', 'debug']);

/** Options of one run. */
export interface IsolateRunOptions {
  readonly cpuPollMs: number;
  readonly onLateCall?: (event: LateCallEvent) => void;
  readonly startedAt: number;
  readonly source: 'pool' | 'cold';
}

/** Runs one program in `prepared`; the returned promise never rejects. */
export function executeRun(
  prepared: PreparedIsolate,
  request: RunRequest,
  bridge: GuestBridge,
  signal: AbortSignal,
  options: IsolateRunOptions,
): Promise<IsolateRunOutcome> {
  return new IsolateRun(prepared, request, bridge, signal, options).start();
}

class IsolateRun {
  private settled = false;
  private resolve!: (outcome: IsolateRunOutcome) => void;
  private readonly baseCpu: bigint;
  private lastCpuNs = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly outcomes = new OutcomeQueue((items) => this.deliver(items));
  /** Calls sent to the bridge whose outcome has not arrived. */
  private inFlight = 0;
  private started = false;
  private probing = false;
  private idleCpuNs = -1;
  /** Call ids only grow (the guest numbers calls in order), so a replayed id is refused without a set. */
  private lastId = 0;
  private logBytes = 0;
  private startup: RunStartup = { source: 'cold', ms: 0 };

  constructor(
    private readonly prepared: PreparedIsolate,
    private readonly request: RunRequest,
    private readonly bridge: GuestBridge,
    private readonly signal: AbortSignal,
    private readonly options: IsolateRunOptions,
  ) {
    this.baseCpu = readCpu(prepared) ?? 0n;
  }

  start(): Promise<IsolateRunOutcome> {
    return new Promise((resolve) => {
      this.resolve = resolve;
      if (this.signal.aborted) {
        this.finish({ kind: 'aborted', message: abortMessage(this.signal) });
        return;
      }
      const { prepared, request } = this;
      prepared.receiver = (kind, items) => this.onMessage(kind, items);
      prepared.onCatastrophic = (message) => this.finish({ kind: 'crash', message: `The isolate failed fatally: ${message}` });
      if (prepared.catastrophic !== undefined) {
        this.finish({ kind: 'crash', message: `The isolate failed fatally: ${prepared.catastrophic}` });
        return;
      }
      this.signal.addEventListener('abort', this.onAbort, { once: true });
      this.timer = setInterval(() => this.checkCpu(), this.options.cpuPollMs);
      this.timer.unref?.();
      const { limits } = request;
      const caps = {
        maxLogBytes: limits.maxLogBytes,
        maxResultBytes: limits.maxResultBytes,
        maxArgBytes: limits.maxArgBytes,
        maxArgDepth: limits.maxArgDepth,
        maxArgNodes: limits.maxArgNodes,
      };
      this.startup = { source: this.options.source, ms: performance.now() - this.options.startedAt };
      prepared.entry
        .apply(undefined, ['start', [request.js, JSON.stringify(request.toolNames), JSON.stringify(caps)]], {
          arguments: { copy: true },
          timeout: this.remainingCpuMs(),
        })
        .then(
          (state) => {
            this.started = true;
            this.afterSlice(state);
          },
          (err: unknown) => this.onIsolateError(err),
        );
    });
  }

  private readonly onAbort = () => this.finish({ kind: 'aborted', message: abortMessage(this.signal) });

  private remainingCpuMs(): number {
    const used = this.usedCpuMs();
    return Math.max(1, Math.ceil(this.request.limits.cpuMs - used));
  }

  private usedCpuMs(): number {
    const now = readCpu(this.prepared);
    if (now !== undefined) this.lastCpuNs = Number(now - this.baseCpu);
    return this.lastCpuNs / 1e6;
  }

  private checkCpu(): void {
    if (this.settled) return;
    // Only isolated-vm disposes an isolate of a live run: it does so when memoryLimit is passed.
    if (this.prepared.isolate.isDisposed) return this.onIsolateError(new Error('isolate disposed (memory limit)'));
    if (this.usedCpuMs() > this.request.limits.cpuMs) return this.failCpu();
    // Quiet (no CPU since the last poll, no wait, nothing in flight): ask whether it can resume.
    if (this.started && !this.probing && this.inFlight === 0 && this.outcomes.idle) {
      if (this.idleCpuNs === this.lastCpuNs) this.probe();
      this.idleCpuNs = this.lastCpuNs;
    } else this.idleCpuNs = -1;
  }

  private probe(): void {
    this.probing = true;
    this.prepared.entry.apply(undefined, ['probe', []], { arguments: { copy: true }, timeout: this.remainingCpuMs() }).then(
      (state) => {
        this.probing = false;
        this.afterSlice(state, true);
      },
      (err: unknown) => this.onIsolateError(err),
    );
  }

  /**
   * After guest code ran: check the CPU budget, and whether the program can still progress. A
   * state of 0 (no pending call, not ended) was read before that slice's microtasks ran, so it
   * is confirmed by a probe, which runs after them; a confirmed 0 means the program awaits a
   * promise nothing will ever settle, and would otherwise hang until the wall deadline.
   */
  private afterSlice(state: unknown, probed = false): void {
    this.checkCpu();
    if (this.settled || state !== 0) return;
    if (probed) {
      this.finish({
        kind: 'thrown',
        message: 'The program can never finish: it awaits a promise that nothing will settle (no tool call is pending, and there are no timers).',
      });
      return;
    }
    setImmediate(() => {
      if (!this.settled && !this.probing) this.probe();
    });
  }

  private failCpu(): void {
    const { cpuMs } = this.request.limits;
    this.finish({ kind: 'limit', limit: 'cpuMs', value: cpuMs, message: `The program used more than cpuMs=${cpuMs} ms of CPU time and was stopped.` });
  }

  private onIsolateError(err: unknown): void {
    if (this.settled) return;
    const message = err instanceof Error ? err.message : String(err);
    if (this.prepared.catastrophic !== undefined) {
      this.finish({ kind: 'crash', message: `The isolate failed fatally: ${this.prepared.catastrophic}` });
    } else if (this.prepared.isolate.isDisposed || /memory limit/i.test(message)) {
      const { memoryMb } = this.request.limits;
      this.finish({ kind: 'limit', limit: 'memoryMb', value: memoryMb, message: `The program used more than memoryMb=${memoryMb} MB of memory and was stopped.` });
    } else if (/timed out/i.test(message)) {
      this.failCpu();
    } else {
      this.finish({ kind: 'crash', message: `The isolate failed: ${message}` });
    }
  }

  private protocolError(what: string): undefined {
    this.finish({ kind: 'crash', message: `The isolate sent a malformed message (${what}); the run was stopped.` });
  }

  private onMessage(kind: unknown, items: unknown): undefined {
    if (this.settled) {
      this.late(kind, items);
      return undefined;
    }
    if (typeof kind !== 'string' || !Array.isArray(items)) return this.protocolError('not a kind and a list');
    switch (kind) {
      case 'calls':
        this.onCalls(items);
        return undefined;
      case 'log':
        this.onLog(items);
        return undefined;
      case 'limit':
        this.onLimit(items);
        return undefined;
      case 'end':
        this.onEnd(items);
        return undefined;
      default:
        return this.protocolError(`unknown kind ${JSON.stringify(kind).slice(0, 40)}`);
    }
  }

  private late(kind: unknown, items: unknown): void {
    const aware = this.bridge as LateCallAwareBridge;
    const report = typeof aware.onLateCall === 'function' ? (event: LateCallEvent) => aware.onLateCall!(event) : this.options.onLateCall;
    if (report === undefined || kind !== 'calls' || !Array.isArray(items)) return;
    for (let i = 1; i < items.length; i += 3) {
      const name = items[i];
      try {
        report({ name: typeof name === 'string' ? name.slice(0, 200) : '', reason: 'run-ended' });
      } catch {
        // a throwing callback must not break the host
      }
    }
  }

  private onCalls(items: unknown[]): void {
    if (items.length % 3 !== 0) return this.protocolError('calls list is not id, name, args triples');
    const { maxArgBytes } = this.request.limits;
    for (let i = 0; i < items.length; i += 3) {
      const id = items[i];
      const name = items[i + 1];
      const argsJson = items[i + 2];
      if (!isCallId(id) || id <= this.lastId || typeof name !== 'string' || typeof argsJson !== 'string') {
        return this.protocolError('a call with a bad id, name or arguments');
      }
      this.lastId = id;
      if (overBytes(argsJson, maxArgBytes)) {
        this.queueDelivery(id, { ok: false, toolName: name, message: `Arguments of tools.${name} are larger than maxArgBytes=${maxArgBytes} bytes.` });
        continue;
      }
      let pending: Promise<GuestCallOutcome>;
      try {
        pending = this.bridge.call(name, argsJson);
      } catch (err) {
        pending = Promise.reject(err);
      }
      this.inFlight++;
      pending.then(
        (outcome) => {
          this.inFlight--;
          this.queueDelivery(id, outcome);
        },
        () => {
          this.inFlight--;
          this.queueDelivery(id, { ok: false, toolName: name, message: `The host could not dispatch tools.${name}.` });
        },
      );
    }
  }

  /** Pushes a batch of outcomes into the isolate (fire and forget; the program resumes there). */
  private deliver(items: OutcomeBatch): void {
    if (this.settled) return;
    try {
      // One outcome (every sequential call) crosses as four primitives: no array to serialize.
      if (items.length === 4) this.prepared.entry.applyIgnored(undefined, ['deliver1', items[0], items[1], items[2], items[3]]);
      else this.prepared.entry.applyIgnored(undefined, ['deliver', items], { arguments: { copy: true } });
    } catch (err) {
      this.onIsolateError(err);
    }
  }

  private queueDelivery(id: number, outcome: GuestCallOutcome): void {
    if (!this.settled) this.outcomes.push(id, outcome, this.inFlight > 0);
  }

  private onLog(items: unknown[]): void {
    const [level, text] = items;
    if (items.length !== 2 || typeof level !== 'string' || !LOG_LEVELS.has(level) || typeof text !== 'string') {
      return this.protocolError('a log line with a bad level or text');
    }
    const { maxLogBytes } = this.request.limits;
    this.logBytes += text.length * 3 > maxLogBytes ? utf8Length(text) : text.length;
    if (this.logBytes > maxLogBytes) return this.failLogBytes();
    try {
      this.bridge.log(level as 'log', text);
    } catch {
      // the bridge's problem; the run goes on
    }
  }

  private failLogBytes(): void {
    const { maxLogBytes } = this.request.limits;
    this.finish({ kind: 'limit', limit: 'maxLogBytes', value: maxLogBytes, message: `The program wrote more than maxLogBytes=${maxLogBytes} bytes of console output and was stopped.` });
  }

  private onLimit(items: unknown[]): void {
    if (items[0] === 'maxLogBytes') return this.failLogBytes();
    this.protocolError('an unknown limit');
  }

  private onEnd(items: unknown[]): void {
    const [what, a, b, c] = items;
    const { limits } = this.request;
    if (what === 'return' && typeof a === 'string') {
      if (overBytes(a, limits.maxResultBytes)) return this.failResultBytes();
      return this.finish(undefined, a);
    }
    if (what === 'throw' && typeof a === 'string' && typeof b === 'number' && typeof c === 'number') {
      const message = a.length > limits.maxResultBytes * 2 ? `${a.slice(0, limits.maxResultBytes)} ... [message cut]` : a;
      return this.finish({ kind: 'thrown', message, ...this.position(b, c) });
    }
    if (what === 'syntax' && typeof a === 'string') {
      void this.locateSyntaxError(a);
      return;
    }
    if (what === 'limit' && a === 'maxResultBytes') return this.failResultBytes();
    this.protocolError('an end message of unknown shape');
  }

  private failResultBytes(): void {
    const { maxResultBytes } = this.request.limits;
    this.finish({ kind: 'limit', limit: 'maxResultBytes', value: maxResultBytes, message: `The returned value is larger than maxResultBytes=${maxResultBytes} bytes as JSON.` });
  }

  private position(line: number, column: number): { line?: number; column?: number } {
    return programPosition(line, column, this.request.lineOffset ?? 0);
  }

  private async locateSyntaxError(message: string): Promise<void> {
    const where = await locateSyntaxError(this.prepared.isolate, this.request.js, this.request.lineOffset ?? 0);
    this.finish({ kind: 'thrown', message, ...where });
  }

  private finish(failure: RunFailure | undefined, resultJson?: string): void {
    if (this.settled) return;
    this.settled = true;
    this.outcomes.close();
    this.usedCpuMs();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.signal.removeEventListener('abort', this.onAbort);
    this.prepared.onCatastrophic = undefined;
    const stats = { cpuMs: this.lastCpuNs / 1e6, wallMs: performance.now() - this.options.startedAt, startup: this.startup };
    this.resolve(failure === undefined ? { ok: true, resultJson: resultJson ?? 'null', ...stats } : { ok: false, failure, ...stats });
    // Nothing from the isolate reaches the run any more (settled); a program still running is
    // stopped one tick later, off the critical path of the result (dispose takes ~0.5 ms).
    const { isolate } = this.prepared;
    if (failure === undefined || failure.kind === 'thrown') setImmediate(() => disposeQuietly(isolate));
    else disposeQuietly(isolate);
  }
}

function readCpu(prepared: PreparedIsolate): bigint | undefined {
  try {
    return prepared.isolate.isDisposed ? undefined : prepared.isolate.cpuTime;
  } catch {
    return undefined;
  }
}
