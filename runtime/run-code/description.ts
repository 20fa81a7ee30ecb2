/**
 * The run_code description: how to write a program, the limits that bound it, and the visible
 * tools. This is all the model learns about PTC, so it is short, concrete and exact about
 * failure (ToolCallError, denials are final) and about spill.
 *
 * The tools take one of two forms (docs/run-code.md "Large catalogs"):
 * - `full`: every tool's generated declaration (types and JSDoc);
 * - `index`: one line per tool (callable name, first sentence of its description) and a pointer
 *   to `tool_search`, which returns declarations on demand.
 * `discovery: 'auto'` (the default) is full up to `indexAboveTokens` and index above it. In every
 * mode the whole text stays within `maxTokens`: full over it becomes the index, and an index
 * over it is cut with a note naming how many tools are not listed. Whatever the form, the type
 * check uses the full declarations, so a call to a tool the model never looked up still gets
 * exact diagnostics.
 */
import { DENIAL_MESSAGE_PREFIX } from '../../bridge/index.js';
import { languageLevelLine, MAX_SLEEP_MS, type GeneratedToolTypes } from '../../codegen/index.js';
import type { Tool } from '../../tools/index.js';
import { estimateTokens, toolIndexListing, type DescriptionBudget } from '../discovery/index.js';
import type { RunLimits } from '../program-runner.js';

/** How run_code's description presents the tools (docs/run-code.md "Large catalogs"). */
export type DiscoveryMode = 'auto' | 'full' | 'index';

/** The visible tools: their generated types and the tools themselves (for the descriptions). */
export interface DescribedCatalog {
  readonly types: GeneratedToolTypes;
  readonly tools: readonly Tool[];
}

/** A description, and which form it took. */
export interface RunCodeDescription {
  readonly text: string;
  /** The form the tools took (`none` before a host is known). */
  readonly mode: 'full' | 'index' | 'none';
  /** Tools listed (declared or in the index), and tools the cut index leaves out. */
  readonly listed: number;
  readonly omitted: number;
  /** {@link estimateTokens} of `text`. */
  readonly estimatedTokens: number;
}

/** What a description is made from. */
export interface RunCodeDescriptionOptions {
  readonly limits: RunLimits;
  readonly discovery: DiscoveryMode;
  readonly budget: DescriptionBudget;
  /** The visible tools; absent before a host is known. */
  readonly catalog?: DescribedCatalog;
  /** The name of the host's tool_search tool, when one is registered. */
  readonly searchTool?: string;
  /** The name of the host's spill_read tool, when one is registered. */
  readonly spillRead?: string;
}

/** The host's companion tools the description points to (each named only when registered). */
export interface DescribedCompanions {
  readonly searchTool?: string | undefined;
  readonly spillRead?: string | undefined;
}

/** What the type check enforces (codegen's language-level.ts, read from the checker's own options); made once. */
let languageLine: string | undefined;

function spillSentence(limits: RunLimits, spillRead: string | undefined): string {
  const what = `If the result plus logs exceed ${limits.maxOutputBytes} bytes, the larger part is replaced by { spilled: { id, bytes }, head, tail }: it is kept whole, but you see only its start and end`;
  if (spillRead === undefined) return `${what}, so return less.`;
  return `${what}. Return less; or, when you need the rest, call \`${spillRead}({ id, offset })\` yourself (not from a program): it returns the spilled JSON text a page at a time, offsets in bytes, and each page says the offset of the next.`;
}

function preamble(limits: RunLimits, spillRead: string | undefined): string[] {
  return [
    'Run a TypeScript program that calls tools, and get back only what it returns.',
    'Write the body of an async function: call tools with `await tools.<name>(args)`, filter and join their results in code, and `return` a JSON value. `console.log` output is captured and returned too.',
    'Calls you do not await one after another run concurrently: `await Promise.all([tools.a(x), tools.b(y)])`.',
    'A call that fails throws `ToolCallError` (`name`, `toolName`, `message`; `e instanceof ToolCallError` works).',
    `A call denied by policy (a guard, a policy listener or an approver refused it, or its result was withheld) throws a \`ToolCallError\` whose message starts with "${DENIAL_MESSAGE_PREFIX}"; no other failure's message does. A denial is final: do not retry it or work around it.`,
    'Every call goes through the same policy, approvals and audit as a direct call. Tool results stay inside the program unless you return or log them, so return only what you need.',
    'There is no `require`, `import`, `process` or `fetch`; only `tools`, `ToolCallError`, `console`, `sleep` and the standard JavaScript built-ins.',
    `To wait, for instance before retrying a rate-limited call, use \`await sleep(ms)\`: at most ${MAX_SLEEP_MS} ms per call, counted in the wall time, not the CPU time. There are no other timers (no \`setTimeout\` or \`setInterval\`).`,
    (languageLine ??= languageLevelLine()),
    `Limits: ${limits.cpuMs} ms CPU, ${limits.wallMs} ms wall time, ${limits.memoryMb} MB memory, ${limits.maxCalls} tool calls. Hitting one ends the run with an error naming it. Up to ${limits.maxInFlight} calls run at once and the rest wait their turn, so Promise.all over many calls needs no batching.`,
    spillSentence(limits, spillRead),
  ];
}

function indexHeader(count: number, searchTool: string | undefined): string {
  const n = count.toLocaleString('en-US');
  if (searchTool === undefined) {
    return `The program can call these ${n} tools, listed by the name a program calls (\`tools.<name>\`) and what they do; their declarations are not shown. The type check knows every tool's exact types: a call with wrong arguments is rejected with the expected type, so fix it from the error.`;
  }
  return (
    `The program can call these ${n} tools, listed by the name a program calls (\`tools.<name>\`) and what they do. ` +
    `Before you use a tool whose declaration you have not seen, call \`${searchTool}\` with a few words of what you need or the tool's name: it returns the exact TypeScript declarations (arguments, result, documentation). ` +
    'The type check knows every tool\'s exact types, so a call with wrong arguments is rejected with the expected type.'
  );
}

function cutNote(searchTool: string | undefined): (omitted: number) => string {
  return (omitted) => {
    const n = omitted.toLocaleString('en-US');
    return searchTool === undefined
      ? `- …and ${n} more tools, not listed here because this list is over its size budget. They are callable, but without a search tool their names cannot be looked up.`
      : `- …and ${n} more tools, not listed here because this list is over its size budget. They are callable like the others; \`${searchTool}\` finds them.`;
  };
}

const described = (text: string, mode: RunCodeDescription['mode'], listed: number, omitted: number): RunCodeDescription => ({
  text,
  mode,
  listed,
  omitted,
  estimatedTokens: estimateTokens(text),
});

/** The description for the visible tools, in the form the mode and the budget call for. */
export function runCodeDescription(options: RunCodeDescriptionOptions): RunCodeDescription {
  const parts = preamble(options.limits, options.spillRead);
  const { catalog, budget } = options;
  if (catalog === undefined) return described(parts.join('\n'), 'none', 0, 0);
  const count = catalog.types.tools.length;
  if (options.discovery !== 'index') {
    const full = [...parts, 'The tools available to the program:', '```ts', catalog.types.declarations.trim(), '```'].join('\n');
    const fullTokens = estimateTokens(full);
    const ceiling = options.discovery === 'auto' ? Math.min(budget.indexAboveTokens, budget.maxTokens) : budget.maxTokens;
    if (fullTokens <= ceiling) return { text: full, mode: 'full', listed: count, omitted: 0, estimatedTokens: fullTokens };
  }
  const descriptions = new Map(catalog.tools.map((t) => [t.name, t.description]));
  const head = [...parts, indexHeader(count, options.searchTool)].join('\n');
  const room = budget.maxTokens - estimateTokens(head) - 1;
  const entries = catalog.types.tools.map((t) => ({ callable: t.callableName, description: descriptions.get(t.toolName) ?? '' }));
  const listing = toolIndexListing(entries, room, cutNote(options.searchTool));
  return described(`${head}\n${listing.text}`, 'index', listing.listed, listing.omitted);
}

/**
 * A describer for one run_code tool: {@link runCodeDescription} remembered for the last catalog
 * and companion tools (the description is read on every `host.schemas()`; a 500-tool
 * declaration text is a megabyte to rebuild and measure).
 */
export function createDescriber(base: Omit<RunCodeDescriptionOptions, 'catalog' | 'searchTool' | 'spillRead'>): (catalog?: DescribedCatalog, companions?: DescribedCompanions) => RunCodeDescription {
  let last: { types: GeneratedToolTypes | undefined; searchTool: string | undefined; spillRead: string | undefined; result: RunCodeDescription } | undefined;
  let warned = false;
  return (catalog, companions = {}) => {
    const { searchTool, spillRead } = companions;
    if (last && last.types === catalog?.types && last.searchTool === searchTool && last.spillRead === spillRead) return last.result;
    const result = runCodeDescription({ ...base, ...(catalog ? { catalog } : {}), ...(searchTool !== undefined ? { searchTool } : {}), ...(spillRead !== undefined ? { spillRead } : {}) });
    last = { types: catalog?.types, searchTool, spillRead, result };
    if (result.mode === 'index' && searchTool === undefined && !warned) {
      warned = true;
      process.emitWarning('ptc-runtime: run_code lists its tools as an index (too many to declare in full) but the host has no tool_search tool; register createToolSearchTool() so the model can read their declarations');
    }
    return result;
  };
}
