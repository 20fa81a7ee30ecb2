/**
 * The session log as JSONL: one event per line. Writing is synchronous and append-only, so an
 * event is on disk before the next one is emitted and a crash loses at most a partial last line,
 * which the reader reports instead of failing the whole log.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { EventSink, ToolEvent } from './events.js';

/** A sink appending each event as one JSON line to `path`; `close()` releases the file. */
export function jsonlFileSink(path: string): EventSink & { close(): void } {
  const fd = openSync(path, 'a');
  let closed = false;
  const sink = (event: ToolEvent) => {
    if (closed) throw new Error(`jsonlFileSink: ${path} is closed`);
    writeSync(fd, JSON.stringify(event) + '\n');
  };
  return Object.assign(sink, {
    close() {
      if (!closed) closeSync(fd);
      closed = true;
    },
  });
}

/** A sink that keeps every line in memory (tests, short runs). */
export function memoryJsonlSink(): EventSink & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign((event: ToolEvent) => void lines.push(JSON.stringify(event)), { lines });
}

/** One line of a log that could not be read, with its 1-based line number. */
export interface JsonlProblem {
  readonly line: number;
  readonly problem: string;
}

/** Reads a JSONL log back: the parsed objects in order, and the lines that were not JSON objects. */
export function readJsonl(text: string): { events: Record<string, unknown>[]; problems: JsonlProblem[] } {
  const events: Record<string, unknown>[] = [];
  const problems: JsonlProblem[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        problems.push({ line: i + 1, problem: 'not a JSON object' });
      } else {
        events.push(parsed as Record<string, unknown>);
      }
    } catch {
      problems.push({ line: i + 1, problem: i === lines.length - 1 || lines.slice(i + 1).every((l) => !l.trim()) ? 'truncated last line' : 'not valid JSON' });
    }
  });
  return { events, problems };
}
