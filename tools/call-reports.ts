/**
 * `exec.progress` and `exec.log`: what a running tool reports before it ends, as `tool/progress`
 * and `tool/log` events (and, through `ptc mcp serve`, MCP notifications). Bounded per call, so
 * a tool in a loop cannot flood the sink, a trace or an MCP client:
 * - progress: at most one event per {@link PROGRESS_INTERVAL_MS} (a report inside the interval
 *   replaces the one waiting; the last report before the call ends is not lost when it reaches
 *   `total`), at most {@link MAX_PROGRESS_EVENTS} per call; `progress` must increase, as MCP
 *   requires;
 * - log: at most {@link MAX_LOG_EVENTS} lines per call (then one line says the rest were
 *   dropped), each message cut at {@link MAX_REPORT_CHARS}.
 * Bad input (a non-number, an unknown level) throws a TypeError naming the field; reports after
 * the call ended are ignored.
 */
import { clipText } from './errors.js';
import { LOG_LEVELS, type LogLevel, type UnstampedEvent } from './events.js';

/** Shortest time between two `tool/progress` events of one call. */
export const PROGRESS_INTERVAL_MS = 50;
/** Most `tool/progress` events of one call. */
export const MAX_PROGRESS_EVENTS = 1_000;
/** Most `tool/log` events of one call (one more says the rest were dropped). */
export const MAX_LOG_EVENTS = 200;
/** Longest progress or log message. */
export const MAX_REPORT_CHARS = 4_000;

/** What `exec.progress` takes. */
export interface ProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** What `exec.log` takes. */
export interface LogEntry {
  readonly level: LogLevel;
  readonly message: string;
}

/** The reports of one call. */
export class CallReports {
  #last = Number.NEGATIVE_INFINITY;
  #lastAt = Number.NEGATIVE_INFINITY;
  #progressEvents = 0;
  #logEvents = 0;
  #waiting: UnstampedEvent | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #over = false;

  constructor(
    private readonly ids: { readonly callId: string; readonly toolName: string },
    private readonly emit: (event: UnstampedEvent) => unknown,
  ) {}

  progress(update: ProgressUpdate): void {
    const who = `exec.progress of "${this.ids.toolName}"`;
    if (typeof update !== 'object' || update === null) throw new TypeError(`${who}: takes { progress, total?, message? }`);
    const { progress, total, message } = update;
    if (typeof progress !== 'number' || !Number.isFinite(progress)) throw new TypeError(`${who}: progress must be a finite number`);
    if (total !== undefined && (typeof total !== 'number' || !Number.isFinite(total))) throw new TypeError(`${who}: total must be a finite number`);
    if (message !== undefined && typeof message !== 'string') throw new TypeError(`${who}: message must be a string`);
    if (progress <= this.#last) throw new TypeError(`${who}: progress must increase (${progress} after ${this.#last})`);
    this.#last = progress;
    if (this.#over || this.#progressEvents >= MAX_PROGRESS_EVENTS) return;
    const event = { type: 'tool/progress' as const, ...this.ids, progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message: clipText(message, MAX_REPORT_CHARS) } : {}) };
    const now = Date.now();
    if (now - this.#lastAt >= PROGRESS_INTERVAL_MS || (total !== undefined && progress >= total)) {
      this.#clearWaiting();
      this.#send(event, now);
      return;
    }
    // Inside the interval: the newest report waits for the interval's end.
    this.#waiting = event;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if (waiting && !this.#over) this.#send(waiting, Date.now());
    }, PROGRESS_INTERVAL_MS - (now - this.#lastAt));
    this.#timer.unref?.();
  }

  log(entry: LogEntry): void {
    const who = `exec.log of "${this.ids.toolName}"`;
    if (typeof entry !== 'object' || entry === null) throw new TypeError(`${who}: takes { level, message }`);
    if (!(LOG_LEVELS as readonly unknown[]).includes(entry.level)) throw new TypeError(`${who}: level must be one of ${LOG_LEVELS.join(', ')}`);
    if (typeof entry.message !== 'string') throw new TypeError(`${who}: message must be a string`);
    if (this.#over || this.#logEvents > MAX_LOG_EVENTS) return;
    this.#logEvents++;
    const message = this.#logEvents > MAX_LOG_EVENTS ? `(more log lines of this call were dropped: the most is ${MAX_LOG_EVENTS})` : clipText(entry.message, MAX_REPORT_CHARS);
    this.emit({ type: 'tool/log', ...this.ids, level: this.#logEvents > MAX_LOG_EVENTS ? 'warning' : entry.level, message });
  }

  /** The call ended: a waiting progress report is sent now; later reports are ignored. */
  end(): void {
    if (this.#over) return;
    const waiting = this.#waiting;
    this.#clearWaiting();
    if (waiting) this.#send(waiting, Date.now());
    this.#over = true;
  }

  #send(event: UnstampedEvent, now: number): void {
    this.#lastAt = now;
    this.#progressEvents++;
    this.emit(event);
  }

  #clearWaiting(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waiting = undefined;
  }
}
