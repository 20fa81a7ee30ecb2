/**
 * Arguments from a program arrive as JSON text produced by the guest, which is untrusted: a
 * compromised sandbox process can send anything. So the caps are checked again here, on the
 * text, before anything is parsed into a host object: size in UTF-8 bytes, then nesting depth
 * and node count in one scan of the text (so a deep document never reaches a recursive walk,
 * and a large one is measured without building it). Over a cap is a refusal naming the cap and
 * its value, never truncation. What `JSON.parse` builds is plain JSON by construction (a
 * `__proto__` key is an ordinary own key there): `parseArgsJson` (`parseFrozenJson`) freezes it
 * and marks it so, and the pipeline takes it without a second copy; it still validates it and
 * refuses prototype keys (step 2), like any call's args, once for the call's execution mode and
 * its pipeline both (tools/args-snapshot.ts).
 */
import { parseArgsJson, type JsonValue } from '../tools/index.js';
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
  return scanJson(text, cap, Number.POSITIVE_INFINITY).depth;
}

/**
 * One pass over JSON text: its deepest nesting and how many values it holds (the root, every
 * array item and every object member's value: what a walk of the parsed document visits). Stops
 * as soon as the depth passes `maxDepth` or the count passes `maxNodes` (the figure is then
 * just over the cap). The text is assumed to be JSON; malformed text gives a meaningless count
 * and is refused by the parse that follows.
 */
export function scanJson(text: string, maxDepth: number, maxNodes: number): { depth: number; nodes: number } {
  let depth = 0;
  let max = 0;
  let nodes = 1;
  let inString = false;
  // Per open container: is it an array? Bounded by maxDepth + 1 (the scan stops past it).
  const isArray: boolean[] = [];
  // Just after a `[`: the next token is the array's first item, unless it is `]`.
  let arrayOpened = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (arrayOpened) {
      arrayOpened = false;
      if (c !== 0x5d && ++nodes > maxNodes) return { depth: max, nodes };
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      isArray[depth] = c === 0x5b;
      if (++depth > max) {
        max = depth;
        if (max > maxDepth) return { depth: max, nodes };
      }
      arrayOpened = c === 0x5b;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x3a || (c === 0x2c && isArray[depth - 1] === true)) {
      // `:` starts an object member's value; `,` inside an array starts the next item.
      if (++nodes > maxNodes) return { depth: max, nodes };
    }
  }
  return { depth: max, nodes };
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
  const scan = scanJson(text, caps.maxArgDepth, caps.maxArgNodes);
  if (scan.depth > caps.maxArgDepth) {
    return { ok: false, message: limitMessage('maxArgDepth', caps.maxArgDepth, { by: 'call', toolName }) };
  }
  if (scan.nodes > caps.maxArgNodes) {
    return { ok: false, message: limitMessage('maxArgNodes', caps.maxArgNodes, { by: 'call', toolName }) };
  }
  let args: JsonValue;
  try {
    args = parseArgsJson(text);
  } catch {
    return { ok: false, message: `Arguments for "${toolName}" are not valid JSON.` };
  }
  return { ok: true, args, bytes };
}
