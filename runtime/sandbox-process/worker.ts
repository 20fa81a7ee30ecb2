/**
 * Entry of a sandbox process (`node --no-node-snapshot worker.js <memoryMb> <isolateRuns>
 * <slots>`). It runs programs with the in-process isolate runner, up to `slots` runs at once
 * (all of one group: the host's pool sees to that), and relays the guest's calls and console
 * lines to the host over frames on fd 4; the host's replies arrive on fd 3. It holds no tool,
 * token or secret: its environment is empty and its working directory an empty temp directory.
 * When the host goes away (fd 3 closes) it exits.
 *
 * With more than one slot, slices of guest code run on isolated-vm's own thread for their
 * isolate (`offThreadSlices`), so a program computing in one slot never holds this thread, and
 * with it the calls and outcomes of the other slots; each slot's slice is bounded by its own
 * CPU budget. Two kinds of slice run on this thread instead, saving the hand-off (~0.2 ms of
 * CPU a slice, a quarter of a short run's): every slice with one slot, and with several, the
 * outcome slices of a run that is alone here. The host sends no run to a process whose lone
 * run is in such a slice (it was sent outcomes and has sent nothing since: SandboxProcess
 * `soloSlice`), and a run that arrives first makes its neighbour's next slices go off-thread,
 * since frames are read in order. A slice that sends nothing says `idle`, so the host knows it
 * ended. A program's first slice always runs off-thread with several slots: runs that come
 * together join a process while its first run starts.
 */
import { readSync, writeSync } from 'node:fs';
import net from 'node:net';
import { availableParallelism } from 'node:os';
import type { OutcomeBatch } from '../outcome-queue.js';
import { createIsolateRunner, type LateCallAwareBridge, type RelayBridge } from '../isolate/index.js';
import { MAX_RECORDED_LATE_CALLS } from '../../bridge/late-calls.js';
import { encodeFrame, FrameReader } from './frames.js';
import { ReplyWait } from './reply-wait.js';
import { readHostMessage, type HostToWorker, type WorkerToHost } from './wire.js';
import { errorText } from '../../tools/errors.js';

/** Calls are sent in batches of at most this many bytes of arguments. */
const CALL_BATCH_BYTES = 1 << 20;

interface ActiveRun {
  readonly runId: number;
  readonly controller: AbortController;
  /** Pushes a batch of outcomes from the host into the run, with a durable run's clock (set when the run starts). */
  deliver: ((items: OutcomeBatch, clockMs?: number) => void) | undefined;
  queue: (string | number)[];
  queueBytes: number;
  flushScheduled: boolean;
  /** Late calls not yet sent (see {@link flushLate}): names, then a count past the cap. */
  lateNames: string[];
  lateMore: number;
  /** Late calls of this run named so far (at most MAX_RECORDED_LATE_CALLS). */
  lateNamed: number;
}

const memoryMb = Number(process.argv[2]) > 0 ? Number(process.argv[2]) : 64;
/** Clean runs of this process's group one isolate serves, each in a fresh context (1: none reused). */
const isolateRuns = Number(process.argv[3]) >= 1 ? Math.floor(Number(process.argv[3])) : 1;
/** Runs held at once, each in its own context and isolate. */
const slots = Number(process.argv[4]) >= 1 ? Math.min(8, Math.floor(Number(process.argv[4]))) : 1;
// After a run, disposing its isolate and preparing the next take ~2-4 ms of this process's time.
// Where the host shares a core with it (a pinned or busy machine), doing that at once would
// delay the host reading the outcome just sent; a few ms later the host is idle again.
const CLEANUP_DELAY_MS = 3;
/** How long one slice of a run may hold this thread when the process has several slots. */
const SLICE_BOUND_MS = 20;
// A fatal V8 out-of-memory error (an allocation past any heap limit) aborts this process; the
// host sees the exit and reports the memory limit. With one slot this process prepares its
// spare isolate on its own thread (nothing else to do between runs); with several, off it, so
// the other slots' calls are not held meanwhile.
const runner = createIsolateRunner({
  poolSize: 1,
  memoryMb,
  cleanupDelayMs: CLEANUP_DELAY_MS,
  blockingRefill: slots === 1,
  isolateRuns,
  keptIsolates: slots,
  offThreadSlices: slots === 1 ? false : (slice) => slice === 'start' || active.size > 1,
  // With several slots a run's slices run on this thread, bounded, and a program that computes
  // past the bound is replayed with its slices on isolated-vm's thread (docs/run-life.md
  // "Bounded slices"): its process-mates' calls wait at most the bound, and the common run pays
  // no thread hand-off per slice.
  ...(slots === 1 ? {} : { sliceBoundMs: SLICE_BOUND_MS }),
});
const INPUT_FD = 3;
const OUTPUT_FD = 4;
const readBuffer = Buffer.allocUnsafe(64 * 1024);
// `onread` hands each read to one callback in a reused buffer, without the stream machinery
// (~5 µs less per message); `receive` copies each read out of it.
// (Node documents `onread` for the constructor; this @types/node has it on connect() only.)
const inputOptions: net.SocketConstructorOpts & { onread: net.OnReadOpts } = {
  fd: INPUT_FD,
  readable: true,
  writable: false,
  onread: { buffer: readBuffer, callback: (bytes, buffer) => receive(buffer, bytes) },
};
const input = new net.Socket(inputOptions);
const output = new net.Socket({ fd: OUTPUT_FD, readable: false, writable: true });
const replyWait = new ReplyWait(availableParallelism());
/** Runs in progress, by the host's run id (at most `slots`). */
const active = new Map<number, ActiveRun>();
/** A frame is being dispatched: reading more input now would re-enter the reader. */
let dispatching = false;
/** Replies read by polling since the event loop last turned (see {@link awaitReply}). */
let pollsThisTurn = 0;
const MAX_POLLS_PER_TURN = 64;

/** Frames queued in this turn, not yet written (see {@link send}). */
let outgoing: Buffer[] = [];
let outgoingBytes = 0;
/** Frames queued so far (see {@link deliver}: whether a slice sent anything). */
let framesSent = 0;
let flushScheduled = false;
/** Queued output past this many bytes is written at once (a flood of console lines, a large result). */
const OUTPUT_FLUSH_BYTES = 64 * 1024;

/**
 * Queues one message for the host. What a turn of this process produces (a program's console
 * lines, its calls, its end and late calls) is written together once the turn's microtasks have
 * run: one syscall, and one wake-up of the host, instead of one per frame (a program logging
 * 1,000 lines between two calls made 1,000 writes). Before polling for a reply everything queued
 * is written at once ({@link flushOutput}); order is kept, since every frame goes through here.
 */
function send(message: WorkerToHost): void {
  const frame = encodeFrame(message);
  framesSent++;
  outgoing.push(frame);
  outgoingBytes += frame.length;
  if (outgoingBytes >= OUTPUT_FLUSH_BYTES) return flushOutput();
  if (!flushScheduled) {
    flushScheduled = true;
    // Two hops: after the microtasks already queued in this turn (the calls' flush among them).
    queueMicrotask(() => queueMicrotask(flushOutput));
  }
}

/** Writes what {@link send} queued. */
function flushOutput(): void {
  flushScheduled = false;
  if (outgoing.length === 0) return;
  const data = outgoing.length === 1 ? outgoing[0]! : Buffer.concat(outgoing, outgoingBytes);
  outgoing = [];
  outgoingBytes = 0;
  // Straight to the pipe when nothing is queued before it (the stream's write costs ~5 µs more);
  // what the pipe does not take now goes through the stream, in order.
  if (output.writableLength > 0) {
    output.write(data);
    return;
  }
  let written = 0;
  try {
    written = writeSync(OUTPUT_FD, data);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return hostGone();
  }
  if (written < data.length) output.write(written === 0 ? data : data.subarray(written));
}

function receive(buffer: Uint8Array, bytes: number): boolean {
  if (bytes <= 0) return true;
  dispatching = true;
  try {
    reader.push(Buffer.from(buffer.subarray(0, bytes)));
  } finally {
    dispatching = false;
  }
  return true;
}

/**
 * Reads the host's reply right here for a short while (see {@link ReplyWait}) instead of sleeping
 * in the event loop. Anything read goes through the same reader, so order is kept.
 */
function awaitReply(): void {
  flushOutput();
  // Each reply read here runs the program on from inside this microtask; now and then let the
  // event loop turn (deferred clean-up, buffered writes) instead.
  if (dispatching || pollsThisTurn >= MAX_POLLS_PER_TURN) return;
  const budgetUs = replyWait.budget();
  if (budgetUs <= 0) return;
  if (pollsThisTurn++ === 0) setImmediate(() => (pollsThisTurn = 0));
  const started = performance.now();
  const until = started + budgetUs / 1000;
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0; // each empty read throws EAGAIN: keep those errors cheap
  try {
    while (performance.now() < until) {
      let bytes: number;
      try {
        bytes = readSync(INPUT_FD, readBuffer, 0, readBuffer.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        return;
      }
      if (bytes === 0) return hostGone();
      replyWait.hit((performance.now() - started) * 1000);
      Error.stackTraceLimit = stackTraceLimit;
      receive(readBuffer, bytes);
      return;
    }
    replyWait.miss();
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** Sends the queued calls; `thenAwait`: then poll for their outcomes for a while ({@link awaitReply}). */
function flushCalls(run: ActiveRun, thenAwait = false): void {
  run.flushScheduled = false;
  if (run.queue.length === 0) return;
  send({ t: 'calls', runId: run.runId, items: run.queue });
  run.queue = [];
  run.queueBytes = 0;
  // Polling for the reply holds this thread: only while this run is the only one here.
  if (thenAwait && active.size === 1 && active.get(run.runId) === run) awaitReply();
}

/**
 * Sends the late calls gathered since the last time: the calls the program made after its run
 * ended, which the runner dropped. A run names at most MAX_RECORDED_LATE_CALLS of them (the host
 * records no more one by one) and only counts the rest, so a flood costs this process a counter.
 */
function flushLate(run: ActiveRun): void {
  if (run.lateNames.length === 0 && run.lateMore === 0) return;
  send({ t: 'late', runId: run.runId, names: run.lateNames, more: run.lateMore });
  run.lateNames = [];
  run.lateMore = 0;
}

// Calls pass through as the guest numbered them, in batches, and outcomes come back as the
// host batched them: this process keeps no per-call state (the host checks every call again).
function bridgeFor(run: ActiveRun): RelayBridge & LateCallAwareBridge {
  return {
    relayCalls(items) {
      for (let i = 0; i + 2 < items.length; i += 3) {
        const name = items[i + 1] as string;
        const argsJson = items[i + 2] as string;
        run.queue.push(items[i]!, name, argsJson);
        run.queueBytes += argsJson.length + name.length + 16;
        if (run.queueBytes >= CALL_BATCH_BYTES) flushCalls(run);
      }
      if (run.queue.length > 0 && !run.flushScheduled) {
        run.flushScheduled = true;
        queueMicrotask(() => flushCalls(run, true));
      }
    },
    attach(deliver) {
      run.deliver = deliver;
    },
    call() {
      return Promise.resolve({ ok: false, toolName: '', message: 'The sandbox process relays calls in batches.' });
    },
    log(level, text) {
      flushCalls(run);
      send({ t: 'log', runId: run.runId, level, text });
    },
    // A durable run's slice ended: after its calls (flushed first) and its logs, in order.
    sliceEnded({ calls }) {
      flushCalls(run);
      send({ t: 'slice', runId: run.runId, calls });
    },
    // The runner reports them as its run settles; they go out just before `done` (or right away,
    // should one come after it: the host records it, and replaces this process).
    onLateCall(event) {
      if (run.lateNamed < MAX_RECORDED_LATE_CALLS) {
        run.lateNamed++;
        run.lateNames.push(event.name);
      } else run.lateMore++;
      if (active.get(run.runId) !== run) queueMicrotask(() => flushLate(run));
    },
  };
}

function startRun({ runId, request }: Extract<HostToWorker, { t: 'run' }>): void {
  // The host's pool never sends more than `slots` runs, nor one id twice; should it, the run is refused.
  if (active.size >= slots || active.has(runId)) {
    send({ t: 'done', runId, outcome: { ok: false, failure: { kind: 'crash', message: `The sandbox process already holds ${active.size} runs (its slots: ${slots}).` }, cpuMs: 0, wallMs: 0 } });
    return;
  }
  const run: ActiveRun = { runId, controller: new AbortController(), deliver: undefined, queue: [], queueBytes: 0, flushScheduled: false, lateNames: [], lateMore: 0, lateNamed: 0 };
  active.set(runId, run);
  runner
    .run(request, bridgeFor(run), run.controller.signal)
    .then(
      (outcome) => outcome,
      (err: unknown) => ({ ok: false as const, failure: { kind: 'crash' as const, message: `Invalid run request: ${errorText(err)}` }, cpuMs: 0, wallMs: 0 }),
    )
    .then((outcome) => {
      flushCalls(run);
      flushLate(run);
      active.delete(runId);
      send({ t: 'done', runId, outcome });
    });
}

function deliver({ runId, items, clock }: Extract<HostToWorker, { t: 'results' }>): void {
  const run = active.get(runId);
  if (run?.deliver === undefined) return;
  const before = framesSent;
  run.deliver(items, clock);
  // Alone here, the slice ran on this thread and has ended; if it sent nothing (no calls
  // coming either: the program awaits more outcomes), the host would not know it ended.
  if (slots > 1 && active.size === 1 && active.get(runId) === run && framesSent === before && run.queue.length === 0) send({ t: 'idle', runId });
}

// The host is trusted, but a frame that is not one of its messages is a bug: readHostMessage
// throws, and this process ends with the reason on stderr (the host reports its exit).
const reader = new FrameReader(
  () => 0x7fffffff,
  (raw) => {
    const message = readHostMessage(raw);
    switch (message.t) {
      case 'run':
        return startRun(message);
      case 'results':
        return deliver(message);
      case 'abort':
        active.get(message.runId)?.controller.abort(new Error('aborted by the host'));
        return;
    }
  },
);
// The host went away. `process.exit` can wait behind an isolate thread that is still running a
// program, so end at once.
function hostGone(): void {
  process.kill(process.pid, 'SIGKILL');
}
input.on('end', hostGone);
input.on('close', hostGone);
output.on('error', hostGone);

await runner.warmUp();
send({ t: 'ready', pid: process.pid });
