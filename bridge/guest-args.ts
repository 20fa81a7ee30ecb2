/**
 * Arguments from a program arrive as JSON text produced by the guest, which is untrusted: a
 * compromised sandbox process can send anything. So the caps are checked again here, on the
 * text, before anything is parsed into a host object: size in UTF-8 bytes, nesting depth (by a
 * scan of the text, so a deep document never reaches a recursive walk) and node count. Over a
 * cap is a refusal naming the cap and its value, never truncation. `JSON.parse` creates
 * `__proto__` as an ordinary own key, and the copy below keeps it that way, so no key can
 * pollute a host prototype.
 */
import { toJson, type JsonValue } from '../tools/index.js';
import { limitMessage } from './limit-failure.js';

/** The argument caps of a run (a subset of `RunLimits`). */
export interface ArgCaps {
  readonly maxArgBytes: number;
  readonly maxArgDepth: number;
  readonly maxArgNodes: number;
}

/** Parsed arguments, or why they were refused. */
export type GuestArgs = { readonly ok: true; readonly args: JsonValue; readonly bytes: number } | { readonly ok: false; readonly message: string };

/** Deepest nesting of `[`/`{` in JSON text, ignoring brackets inside strings; stops early past `cap`. */
export function jsonDepth(text: string, cap: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) {
        max = depth;
        if (max > cap) return max;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

function countNodes(value: JsonValue, cap: number): number {
  let count = 0;
  const stack: JsonValue[] = [value];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (++count > cap) return count;
    if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (typeof v === 'object' && v !== null) for (const key of Object.keys(v)) stack.push(v[key]!);
  }
  return count;
}

/** Checks the caps on the JSON text of one call's arguments and parses it into fresh plain JSON. */
export function parseGuestArgs(toolName: string, argsJson: unknown, caps: ArgCaps): GuestArgs {
  if (typeof argsJson !== 'string') return { ok: false, message: `Arguments for "${toolName}" did not arrive as JSON text.` };
  // `tools.x()` and `tools.x(null)` mean "no arguments".
  const text = argsJson === '' || argsJson === 'undefined' || argsJson === 'null' ? '{}' : argsJson;
  // UTF-8 takes at least one byte per UTF-16 unit, so a long string is over the cap before counting.
  const bytes = text.length > caps.maxArgBytes ? text.length : Buffer.byteLength(text, 'utf8');
  if (bytes > caps.maxArgBytes) {
    return { ok: false, message: limitMessage('maxArgBytes', caps.maxArgBytes, { by: 'call', toolName, measured: `at least ${bytes} bytes` }) };
  }
  const depth = jsonDepth(text, caps.maxArgDepth);
  if (depth > caps.maxArgDepth) {
    return { ok: false, message: limitMessage('maxArgDepth', caps.maxArgDepth, { by: 'call', toolName }) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, message: `Arguments for "${toolName}" are not valid JSON.` };
  }
  let args: JsonValue;
  try {
    args = toJson(parsed);
  } catch (err) {
    return { ok: false, message: `Arguments for "${toolName}" are not plain JSON: ${(err as Error).message}.` };
  }
  const nodes = countNodes(args, caps.maxArgNodes);
  if (nodes > caps.maxArgNodes) {
    return { ok: false, message: limitMessage('maxArgNodes', caps.maxArgNodes, { by: 'call', toolName }) };
  }
  return { ok: true, args, bytes };
}
