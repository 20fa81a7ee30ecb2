/**
 * TypeScript's messages, made useful to a model: a missing host global says the sandbox has
 * none (TypeScript would suggest installing @types/node or adding the DOM lib, which a model
 * cannot do), and an unknown tool lists the tools there are.
 */
import ts from 'typescript';

const HOST_GLOBAL_HINT = /Do you need to (install type definitions|change your target library)|Try `npm i --save-dev @types/;
const HOST_GLOBALS = new Set([
  'process', 'require', 'module', 'exports', 'Buffer', '__dirname', '__filename', 'global', 'globalThis.process',
  'fetch', 'window', 'document', 'navigator', 'location', 'localStorage', 'XMLHttpRequest', 'WebSocket',
  'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'setImmediate', 'queueMicrotask', 'structuredClone',
  'TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams', 'AbortController', 'Response', 'Request', 'Headers', 'atob', 'btoa', 'crypto',
]);
const MAX_LISTED_TOOLS = 40;

/** The message to show for a diagnostic. */
export function rephraseDiagnostic(diagnostic: ts.Diagnostic, toolNames: readonly string[]): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const missing = /^Cannot find name '([^']+)'/.exec(message);
  if (missing && (HOST_GLOBAL_HINT.test(message) || HOST_GLOBALS.has(missing[1]!))) {
    return `Cannot find name '${missing[1]}': programs run in a sandbox without Node.js or browser APIs (no process, require, fetch, timers or DOM). Reach the outside world only through \`tools\`.`;
  }
  if ((diagnostic.code === 2339 || diagnostic.code === 2551) && /on type 'Tools'/.test(message) && toolNames.length > 0) {
    const listed = toolNames.slice(0, MAX_LISTED_TOOLS).join(', ');
    const more = toolNames.length > MAX_LISTED_TOOLS ? `, … (${toolNames.length - MAX_LISTED_TOOLS} more)` : '';
    return `${message} Available tools: ${listed}${more}.`;
  }
  return message;
}
