/**
 * Context accounting for one PTC run, from its events: what direct one-call-per-turn tool use
 * would have put into the model's context (every child call's rendered content, the text the
 * model would have read) against what this run returned (run_code's own rendered content).
 * Tokens are counted with a real tokenizer (gpt-tokenizer, o200k_base).
 *
 * It also counts what the model has to *write* in each style (the program's source, or every
 * call's arguments), because PTC is not free: for a couple of small lookups the program text
 * costs about what it saves. And it counts direct turns: each call is a model round trip.
 * It does not model the history being re-read on every later turn, which makes direct use
 * cost more than shown here; the figures are a lower bound on the difference.
 */
import { countTokens } from 'gpt-tokenizer';
import { contentBlockText, type ContentBlock, type ToolEvent } from '../tools/index.js';

/** Bytes and tokens of some text. */
export interface Size {
  readonly bytes: number;
  readonly tokens: number;
}

/** The accounting of one run. */
export interface ContextAccounting {
  /** Child calls the program made. */
  readonly calls: number;
  /** Direct use: every child call's rendered content, summed. */
  readonly directContent: Size;
  /** Direct use: every child call's arguments as the model would write them. */
  readonly directArgs: Size;
  /** PTC: run_code's rendered content (result, logs, call list). */
  readonly ptcContent: Size;
  /** PTC: the program text the model writes. */
  readonly ptcProgram: Size;
  /** 1 - ptcContent / directContent (negative when PTC returned more). */
  readonly contentReduction: number;
  /** Same, counting what the model writes too: 1 - (ptcContent + ptcProgram) / (directContent + directArgs). */
  readonly totalReduction: number;
}

/** Bytes and tokens of a string. */
export function sizeOf(text: string): Size {
  return { bytes: Buffer.byteLength(text, 'utf8'), tokens: text ? countTokens(text) : 0 };
}

const contentText = (content: readonly ContentBlock[]) => content.map((b) => (b.type === 'text' ? b.text : b.type === 'image' ? `[image ${b.mimeType}]` : contentBlockText(b))).join('\n');
const add = (a: Size, b: Size): Size => ({ bytes: a.bytes + b.bytes, tokens: a.tokens + b.tokens });
const ZERO: Size = { bytes: 0, tokens: 0 };

/** Accounts one run_code call (`runCallId`) from the host's events and the program's source. */
export function accountRun(events: readonly ToolEvent[], runCallId: string, program: string): ContextAccounting {
  const children = new Set<string>();
  let directContent = ZERO;
  let directArgs = ZERO;
  let ptcContent = ZERO;
  for (const e of events) {
    if (e.type === 'tool/call' && e.origin.kind === 'ptc' && e.origin.parentCallId === runCallId) {
      children.add(e.callId);
      directArgs = add(directArgs, sizeOf(JSON.stringify({ name: e.toolName, arguments: e.args })));
    } else if (e.type === 'tool/result' && children.has(e.callId)) {
      directContent = add(directContent, sizeOf(contentText(e.content)));
    } else if (e.type === 'tool/result' && e.callId === runCallId) {
      ptcContent = sizeOf(contentText(e.content));
    }
  }
  const ptcProgram = sizeOf(JSON.stringify({ name: 'run_code', arguments: { code: program } }));
  const ratio = (num: number, den: number) => (den === 0 ? 0 : 1 - num / den);
  return {
    calls: children.size,
    directContent,
    directArgs,
    ptcContent,
    ptcProgram,
    contentReduction: ratio(ptcContent.tokens, directContent.tokens),
    totalReduction: ratio(ptcContent.tokens + ptcProgram.tokens, directContent.tokens + directArgs.tokens),
  };
}
