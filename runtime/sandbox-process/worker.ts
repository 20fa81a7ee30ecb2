/**
 * Entry of a sandbox process (`node --no-node-snapshot worker.js <memoryMb>`). It runs programs
 * with the in-process isolate runner, one run at a time, and relays the guest's calls and
 * console lines to the host over frames on fd 4; the host's replies arrive on fd 3. It holds no
 * tool, token or secret: its environment is empty and its working directory an empty temp
 * directory. When the host goes away (fd 3 closes) it exits.
 */
import net from 'node:net';
import type { GuestBridge, GuestCallOutcome, RunRequest } from '../program-runner.js';
import { createIsolateRunner } from '../isolate/index.js';
import { encodeFrame, FrameReader } from './frames.js';

/** Calls are sent in batches of at most this many bytes of arguments. */
const CALL_BATCH_BYTES = 1 << 20;

interface CurrentRun {
  readonly runId: number;
  readonly controller: AbortController;
  readonly pending: Map<number, (outcome: GuestCallOutcome) => void>;
  queue: (string | number)[];
  queueBytes: number;
  flushScheduled: boolean;
  nextCallId: number;
}

const memoryMb = Number(process.argv[2]) > 0 ? Number(process.argv[2]) : 64;
// After a run, disposing its isolate and preparing the next take ~2-4 ms of this process's time.
// Where the host shares a core with it (a pinned or busy machine), doing that at once would
// delay the host reading the outcome just sent; a few ms later the host is idle again.
const CLEANUP_DELAY_MS = 3;
// A fatal V8 out-of-memory error (an allocation past any heap limit) aborts this process; the
// host sees the exit and reports the memory limit.
const runner = createIsolateRunner({ poolSize: 1, memoryMb, cleanupDelayMs: CLEANUP_DELAY_MS });
const input = new net.Socket({ fd: 3, readable: true, writable: false });
const output = new net.Socket({ fd: 4, readable: false, writable: true });
let current: CurrentRun | undefined;

function send(message: unknown): void {
  output.write(encodeFrame(message));
}

function flushCalls(run: CurrentRun): void {
  run.flushScheduled = false;
  if (run.queue.length === 0) return;
  send({ t: 'calls', runId: run.runId, items: run.queue });
  run.queue = [];
  run.queueBytes = 0;
}

function bridgeFor(run: CurrentRun): GuestBridge {
  return {
    call(name, argsJson) {
      return new Promise<GuestCallOutcome>((resolve) => {
        const id = run.nextCallId++;
        run.pending.set(id, resolve);
        run.queue.push(id, name, argsJson);
        run.queueBytes += argsJson.length + name.length + 16;
        if (run.queueBytes >= CALL_BATCH_BYTES) flushCalls(run);
        else if (!run.flushScheduled) {
          run.flushScheduled = true;
          queueMicrotask(() => flushCalls(run));
        }
      });
    },
    log(level, text) {
      flushCalls(run);
      send({ t: 'log', runId: run.runId, level, text });
    },
  };
}

function startRun(message: Record<string, unknown>): void {
  const runId = message.runId as number;
  if (current !== undefined) return;
  const run: CurrentRun = { runId, controller: new AbortController(), pending: new Map(), queue: [], queueBytes: 0, flushScheduled: false, nextCallId: 1 };
  current = run;
  const request = message.request as RunRequest;
  runner
    .run(request, bridgeFor(run), run.controller.signal)
    .then(
      (outcome) => outcome,
      (err: unknown) => ({ ok: false as const, failure: { kind: 'crash' as const, message: `Invalid run request: ${err instanceof Error ? err.message : String(err)}` }, cpuMs: 0, wallMs: 0 }),
    )
    .then((outcome) => {
      flushCalls(run);
      current = undefined;
      send({ t: 'done', runId, outcome });
    });
}

function deliver(message: Record<string, unknown>): void {
  const run = current;
  if (run === undefined || message.runId !== run.runId || !Array.isArray(message.items)) return;
  const items = message.items as unknown[];
  for (let i = 0; i + 3 < items.length; i += 4) {
    const resolve = run.pending.get(items[i] as number);
    if (resolve === undefined) continue;
    run.pending.delete(items[i] as number);
    resolve(items[i + 1] === 1 ? { ok: true, json: String(items[i + 2]) } : { ok: false, toolName: String(items[i + 2]), message: String(items[i + 3]) });
  }
}

const reader = new FrameReader(
  () => 0x7fffffff,
  (message) => {
    switch (message.t) {
      case 'run':
        return startRun(message);
      case 'results':
        return deliver(message);
      case 'abort':
        if (current !== undefined && message.runId === current.runId) current.controller.abort(new Error('aborted by the host'));
        return;
    }
  },
);
// The host went away. `process.exit` can wait behind an isolate thread that is still running a
// program, so end at once.
const hostGone = () => process.kill(process.pid, 'SIGKILL');
input.on('data', (chunk: Buffer) => reader.push(chunk));
input.on('end', hostGone);
input.on('close', hostGone);
output.on('error', hostGone);

await runner.warmUp();
send({ t: 'ready', pid: process.pid });
