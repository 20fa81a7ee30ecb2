/**
 * TypeScript's messages, made useful to a model: a missing host global says the sandbox has
 * none (TypeScript would suggest installing @types/node or adding the DOM lib, which a model
 * cannot do), and an unknown tool lists the tools there are.
 */
import ts from './typescript-module.cjs';

/** TypeScript suggesting Node's types: the name is a Node global. */
const NODE_TYPES_HINT = /Do you need to install type definitions|Try `npm i --save-dev @types\//;
const HOST_GLOBALS = new Set([
  'process', 'require', 'module', 'exports', 'Buffer', '__dirname', '__filename', 'global', 'globalThis.process',
  'fetch', 'window', 'document', 'navigator', 'location', 'localStorage', 'XMLHttpRequest', 'WebSocket',
  'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'setImmediate', 'queueMicrotask', 'structuredClone',
  'TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams', 'AbortController', 'Response', 'Request', 'Headers', 'atob', 'btoa', 'crypto',
]);
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

/** The message to show for a diagnostic. */
export function rephraseDiagnostic(diagnostic: ts.Diagnostic, toolNames: readonly string[]): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const missing = /^Cannot find name '([^']+)'/.exec(message);
  if (missing && (NODE_TYPES_HINT.test(message) || HOST_GLOBALS.has(missing[1]!))) {
    return `Cannot find name '${missing[1]}': programs run in a sandbox without Node.js or browser APIs (no process, require, fetch, timers or DOM). Reach the outside world only through \`tools\`.`;
  }
  if ((diagnostic.code === 2339 || diagnostic.code === 2551 || diagnostic.code === 7053) && /type 'Tools'/.test(message) && toolNames.length > 0) {
    const listed = toolNames.slice(0, MAX_LISTED_TOOLS).join(', ');
    const more = toolNames.length > MAX_LISTED_TOOLS ? `, … (${toolNames.length - MAX_LISTED_TOOLS} more)` : '';
    return `${message} Available tools: ${listed}${more}.`;
  }
  return message;
}
