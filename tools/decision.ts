/**
 * Factories for the decisions listeners return. Plain objects work too; these only save typing
 * and make the closed set visible at the call site (`decision.deny('outside workspace')`).
 */
import type { JsonValue } from './json.js';
import type { ContentBlock, PostToolDecision, PreToolDecision } from './types.js';

type Extra = { additionalContext?: string };

/** Pre-execute and post-execute decision factories. */
export const decision = {
  allow: (extra: Extra = {}): PreToolDecision => ({ type: 'allow', ...extra }),
  deny: (reason: string, extra: Extra = {}): PreToolDecision => ({ type: 'deny', reason, ...extra }),
  ask: (reason: string, extra: Extra = {}): PreToolDecision => ({ type: 'ask', reason, ...extra }),
  replaceContent: (content: readonly ContentBlock[], extra: Extra = {}): PostToolDecision => ({
    type: 'replace-content',
    content,
    ...extra,
  }),
  replaceValue: (value: JsonValue, extra: Extra = {}): PostToolDecision => ({ type: 'replace-value', value, ...extra }),
  block: (reason: string, extra: Extra = {}): PostToolDecision => ({ type: 'block', reason, ...extra }),
} as const;
