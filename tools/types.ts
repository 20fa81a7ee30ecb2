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

/**
 * A call made by a program running in a model provider's own sandbox (Anthropic's code
 * execution tool, OpenAI's hosted programs), answered by a host-side adapter. `callerId` is the
 * provider's id of that program's container or call (Anthropic `caller.tool_id`, OpenAI
 * `callerId`): untrusted provider data, recorded as given.
 */
export interface ProviderProgramOrigin {
  readonly kind: 'provider-program';
  readonly provider: 'anthropic' | 'openai';
  readonly callerId: string;
}

/**
 * Where a call came from: a model turn, a PTC program holding a run token (set by the bridge
 * only), or a program in a provider's sandbox (set by an adapter).
 */
export type ToolOrigin =
  | { readonly kind: 'model' }
  | { readonly kind: 'ptc'; readonly parentCallId: string; readonly token: string }
  | ProviderProgramOrigin;

/** What listeners and guards see; frozen. `args` is the validated, deep-frozen snapshot. */
export interface ToolExecution {
  readonly callId: string;
  readonly toolName: string;
  readonly args: JsonValue;
  readonly agent?: AgentRef;
  readonly origin: ToolOrigin;
}

/**
 * A block of content for the model: MCP's content types. `data` and `blob` are base64. Where a
 * framework has no form for a block, its adapter sends a text stand-in that says what it was
 * (`contentBlockText`).
 */
export type ContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'audio'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'resource'; readonly resource: EmbeddedResource }
  | ResourceLinkBlock;

/** A resource embedded in a result: text or base64 `blob`, exactly one. */
export type EmbeddedResource =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string };

/** A link to a resource the client may read (MCP `resource_link`). */
export interface ResourceLinkBlock {
  readonly type: 'resource_link';
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
}

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
  | 'render'
  /** A durable run's call waits for a person's later decision (see `ToolResult.deferred`). */
  | 'deferred';

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
  /**
   * Set when the approval channel deferred this call of a durable run to a person who answers
   * later (`isError`, error kind `deferred`): the body did not run; the run suspends and the
   * call runs again when the run is resumed with a decision for `approvalId`.
   */
  readonly deferred?: { readonly approvalId: string; readonly reason: string };
}

/** How the scheduler may run a call: alongside siblings, or alone as a barrier. */
export type ToolExecutionMode = { readonly kind: 'parallel' } | { readonly kind: 'exclusive' };

/** A disposable registration (hooks, tools). Calling `dispose` twice is harmless. */
export interface Disposable {
  dispose(): void;
  [Symbol.dispose](): void;
}

/**
 * Evidence that a person approved this one call in an agent framework's own approval flow (an
 * AI SDK tool-approval response, an Agents SDK `RunState.approve`). It answers step 5 (an `ask`)
 * as allowed once, for this call only; it never overturns a guard's or a listener's denial, and
 * a call that does not ask ignores it. Everything in it is recorded in the trace: never a secret.
 */
export interface ApprovalEvidence {
  /** The framework whose flow the person answered in: `'ai-sdk'`, `'openai-agents'`, ... (1-64 chars). */
  readonly framework: string;
  /** The framework's id of that approval, when it has one (the AI SDK's `approvalId`; at most 512 chars). */
  readonly approvalId?: string;
  /** Free text for the trace: who approved, their comment (at most 1000 chars). */
  readonly note?: string;
}

/** Options of one call. */
export interface CallOptions {
  readonly agent?: AgentRef;
  readonly signal?: AbortSignal;
  /**
   * Set by the PTC bridge for calls from a program, and by an adapter for calls from a
   * provider's sandbox (`provider-program`); model calls leave it out. A malformed origin is
   * refused as `invalid-call`.
   */
  readonly origin?: ToolOrigin;
  /**
   * A person already approved this call in the framework's own flow (see {@link ApprovalEvidence}).
   * Direct calls only: on a call from a PTC program it is refused as `invalid-call`.
   */
  readonly approved?: ApprovalEvidence;
}
