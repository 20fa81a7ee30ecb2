/**
 * TypeScript's messages, made useful to a model: a missing host global says the sandbox has
 * none (TypeScript would suggest installing @types/node or adding the DOM lib, which a model
 * cannot do), a feature past the sandbox's language level says that level and what to do
 * instead (TypeScript would say "Do you need to change your target library?", which a model
 * cannot do either), and an unknown tool lists the tools there are.
 */
import ts from './typescript-module.cjs';
import { MISSING_FEATURES, SANDBOX_LANGUAGE_LEVEL } from './sandbox-language.js';
import { MAX_SLEEP_MS } from './sleep.js';

/** TypeScript suggesting Node's types: the name is a Node global. */
const NODE_TYPES_HINT = /Do you need to install type definitions|Try `npm i --save-dev @types\//;
const HOST_GLOBALS = new Set([
  'process', 'require', 'module', 'exports', 'Buffer', '__dirname', '__filename', 'global', 'globalThis.process',
  'fetch', 'window', 'document', 'navigator', 'location', 'localStorage', 'XMLHttpRequest', 'WebSocket',
  'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'setImmediate', 'queueMicrotask', 'structuredClone',
  'TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams', 'AbortController', 'Response', 'Request', 'Headers', 'atob', 'btoa', 'crypto',
]);
/** Host timers: the sandbox has `sleep` instead. */
const TIMERS = new Set(['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'setImmediate']);
const MAX_LISTED_TOOLS = 40;

/** `noImplicitAny` diagnostics: implicitly `any` parameters, variables, members, indexing. */
const IMPLICIT_ANY_CODES = new Set([7005, 7006, 7008, 7010, 7011, 7015, 7017, 7018, 7019, 7022, 7023, 7024, 7031, 7034, 7052, 7053]);
/** Implicit `any` that hides an unknown tool or a host global stays an error. */
const GUARDED_TYPES = /type '(Tools|typeof globalThis)'/;

/**
 * True for a diagnostic the check lets pass: an implicitly `any` parameter, variable or dynamic
 * index (friction for working model code), unless it is about the `tools` object or
 * `globalThis`, where implicit `any` would hide an unknown tool or a host global.
 */
export function isLenientDiagnostic(diagnostic: ts.Diagnostic): boolean {
  if (!IMPLICIT_ANY_CODES.has(diagnostic.code)) return false;
  return !GUARDED_TYPES.test(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

/** TypeScript's hint that a newer lib or target has the feature. */
const TARGET_HINT = / ?Do you need to change your target library\?.*$/s;
const LIB_HINT = /Try changing the 'lib' compiler option to '([^']+)' or later/;
/** `es2024`, `es2025`, `esnext`: libs past the sandbox's ES2023. */
function isPastSandboxLevel(lib: string): boolean {
  if (lib === 'esnext') return true;
  const year = /^es(\d{4})$/.exec(lib)?.[1];
  return year !== undefined && Number(year) > 2023;
}
const TARGETING = /^(.*?) (?:is|are) only available when targeting '[^']+' or later\.?$/s;
const MISSING_PROPERTY = /^Property '([^']+)' does not exist on type '([^']+)'/;
const MISSING_NAME = /^Cannot find name '([^']+)'/;
/** Iterators without the iterator helpers (`it.map(...)`), as TypeScript names their types. */
const ITERATOR_TYPE = /^(?:Map|Set|Array|String|RegExpString|Iterable|Async)?Iterator<|^(?:Async)?Generator<|^IterableIterator</;
const ITERATOR_HELPERS = new Set(['map', 'filter', 'take', 'drop', 'flatMap', 'reduce', 'toArray', 'forEach', 'some', 'every', 'find']);
const ITERATOR_FEATURE = 'the Iterator global (iterator helpers)';
const FEATURES = new Map(MISSING_FEATURES.map((feature) => [feature.name, feature]));

/** The name a program writes for a member of a TypeScript type: `ObjectConstructor` -> `Object.x`, `Set<number>` -> `Set.prototype.x`. */
function memberName(property: string, type: string): string {
  const constructor = /^(?:typeof )?([A-Z][A-Za-z0-9]*?)(?:Constructor)?$/.exec(type);
  if (constructor && (type.endsWith('Constructor') || type.startsWith('typeof '))) return `${constructor[1]}.${property}`;
  if (/\[\]$/.test(type) || /^(?:readonly )?\[/.test(type)) return `Array.prototype.${property}`;
  if (type === 'string' || /^"/.test(type)) return `String.prototype.${property}`;
  if (type === 'number') return `Number.prototype.${property}`;
  const generic = /^([A-Z][A-Za-z0-9]*)(?:<|$)/.exec(type);
  return generic ? `${generic[1]}.prototype.${property}` : property;
}

/** `feature` is not in the sandbox: its language level, and an alternative when there is a simple one. */
function notInSandbox(lead: string, feature: string): string {
  const instead = FEATURES.get(feature)?.instead;
  return `${lead}: ${feature} is not available in the sandbox, which runs ${SANDBOX_LANGUAGE_LEVEL}.${instead ? ` Instead, ${instead}.` : ''}`;
}

/**
 * A diagnostic about a feature past the sandbox's language level, said as what the sandbox
 * offers; undefined for any other diagnostic.
 */
function rephraseMissingFeature(message: string, sandboxLib: boolean): string | undefined {
  // With the sandbox's lib every lib hint is about the sandbox; with a lib of the host's choice,
  // only a hint past the sandbox's level is (a feature the isolate lacks whatever the lib).
  const hintedLib = LIB_HINT.exec(message)?.[1]?.toLowerCase();
  const hinted = TARGET_HINT.test(message) && (sandboxLib || (hintedLib !== undefined && isPastSandboxLevel(hintedLib)));
  const lead = message.replace(TARGET_HINT, '').replace(/\.$/, '');
  const property = MISSING_PROPERTY.exec(lead);
  if (property) {
    const [, name, type] = property as unknown as [string, string, string];
    if (ITERATOR_HELPERS.has(name) && ITERATOR_TYPE.test(type)) return notInSandbox(lead, ITERATOR_FEATURE);
    if (hinted) return notInSandbox(lead, memberName(name, type));
    return undefined;
  }
  const missing = MISSING_NAME.exec(lead);
  if (missing && (hinted || FEATURES.has(missing[1]!))) return notInSandbox(lead, missing[1]!);
  if (/^'Iterator' only refers to a type/.test(message)) return notInSandbox(lead, ITERATOR_FEATURE);
  const targeting = TARGETING.exec(message);
  if (targeting) return `${targeting[1]} is not available in the sandbox, which runs ${SANDBOX_LANGUAGE_LEVEL}.`;
  if (hinted) return `${lead}: the sandbox runs ${SANDBOX_LANGUAGE_LEVEL}, and its library cannot be changed.`;
  return undefined;
}

/** Options of {@link rephraseDiagnostic}. */
export interface RephraseOptions {
  /** The program is checked against the sandbox's own lib (default true). */
  readonly sandboxLib?: boolean;
}

/** The message to show for a diagnostic. */
export function rephraseDiagnostic(diagnostic: ts.Diagnostic, toolNames: readonly string[], options: RephraseOptions = {}): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const feature = rephraseMissingFeature(message, options.sandboxLib ?? true);
  if (feature !== undefined) return feature;
  const missing = /^Cannot find name '([^']+)'/.exec(message);
  if (missing && TIMERS.has(missing[1]!)) {
    return `Cannot find name '${missing[1]}': programs run in a sandbox without timers. To wait (before retrying a rate-limited call, say), use \`await sleep(ms)\` (at most ${MAX_SLEEP_MS} ms per call).`;
  }
  if (missing && (NODE_TYPES_HINT.test(message) || HOST_GLOBALS.has(missing[1]!))) {
    return `Cannot find name '${missing[1]}': programs run in a sandbox without Node.js or browser APIs (no process, require, fetch or DOM). Reach the outside world only through \`tools\`.`;
  }
  if ((diagnostic.code === 2339 || diagnostic.code === 2551 || diagnostic.code === 7053) && /type 'Tools'/.test(message) && toolNames.length > 0) {
    const listed = toolNames.slice(0, MAX_LISTED_TOOLS).join(', ');
    const more = toolNames.length > MAX_LISTED_TOOLS ? `, … (${toolNames.length - MAX_LISTED_TOOLS} more)` : '';
    return `${message} Available tools: ${listed}${more}.`;
  }
  return message;
}
