/**
 * The shapes every part of the pipeline shares (DESIGN.md "Public surface"). Plain objects,
 * frozen where they describe a call, so listeners and guards can read but never rewrite them.
 */
import type { JsonValue } from './json.js';

/** Who a call runs for. Approval needs one: without an agent, `ask` fails closed. */
export interface AgentRef {
  readonly id: string;
  readonly name?: string;
}

/** A call as the model (or a program) asks for it. `args` is untrusted input. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
}

/** Where a call came from: a model turn, or a PTC program holding a run token. */
export type ToolOrigin =
  | { readonly kind: 'model' }
  | { readonly kind: 'ptc'; readonly parentCallId: string; readonly token: string };

/** What listeners and guards see; frozen. `args` is the validated, deep-frozen snapshot. */
export interface ToolExecution {
  readonly callId: string;
  readonly toolName: string;
  readonly args: JsonValue;
  readonly agent?: AgentRef;
  readonly origin: ToolOrigin;
}

/** A block of content for the model. */
export type ContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string };

/** The decision of the `tools/pre-execute` waterfall. */
export type PreToolDecision =
  | { readonly type: 'allow'; readonly additionalContext?: string }
  | { readonly type: 'deny'; readonly reason: string; readonly additionalContext?: string }
  | { readonly type: 'ask'; readonly reason: string; readonly additionalContext?: string };

/** A decision of the `tools/post-execute` waterfall: exactly one of replace content, replace value, block. */
export type PostToolDecision =
  | { readonly type: 'replace-content'; readonly content: readonly ContentBlock[]; readonly additionalContext?: string }
  | { readonly type: 'replace-value'; readonly value: JsonValue; readonly additionalContext?: string }
  | { readonly type: 'block'; readonly reason: string; readonly additionalContext?: string };

/** Who refused a call before its body ran. */
export type DeniedBy = 'listener' | 'guard' | 'approval';

/** Why a call ended in an error (for programs and audits; the model reads `content`). */
export type ToolErrorKind =
  | 'invalid-call'
  | 'unknown-tool'
  | 'invalid-args'
  | 'denied'
  | 'aborted'
  | 'execution'
  | 'invalid-output'
  | 'blocked'
  | 'render';

/** The outcome of one call, presented to the model in call order. Frozen. */
export interface ToolResult {
  readonly callId: string;
  readonly toolName: string;
  readonly isError: boolean;
  /** The canonical value, after post-execute policy. Absent on error, denial or block. */
  readonly value?: JsonValue;
  /** What the model reads. */
  readonly content: readonly ContentBlock[];
  /** Context for the model added by listeners, in the order they were given. */
  readonly additionalContexts: readonly string[];
  /** Set when the call was refused before its body ran. */
  readonly denied?: { readonly by: DeniedBy; readonly reason: string; readonly index?: number };
  /** Set when a post-execute listener withheld value and content. */
  readonly blocked?: { readonly reason: string; readonly index: number };
  /** Set on every error: a kind and the readable message (also in `content`). */
  readonly error?: { readonly kind: ToolErrorKind; readonly message: string };
}

/** How the scheduler may run a call: alongside siblings, or alone as a barrier. */
export type ToolExecutionMode = { readonly kind: 'parallel' } | { readonly kind: 'exclusive' };

/** A disposable registration (hooks, tools). Calling `dispose` twice is harmless. */
export interface Disposable {
  dispose(): void;
  [Symbol.dispose](): void;
}

/** Options of one call. */
export interface CallOptions {
  readonly agent?: AgentRef;
  readonly signal?: AbortSignal;
  /** Set by the PTC bridge for calls from a program; model calls leave it out. */
  readonly origin?: ToolOrigin;
}
