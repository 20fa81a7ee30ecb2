/**
 * `createToolSearchTool`: the `tool_search` tool. The model calls it with a few words of what it
 * needs and gets back the exact TypeScript declarations of the best matching tools, as a program
 * sees them, so run_code's description can carry a one-line index of a large catalog instead of
 * every declaration.
 *
 * - It is an ordinary tool (defineTool): validation, listeners, guards, approval, post-execute
 *   policy and events apply to it as to any call. A guard that denies it denies discovery.
 * - It searches the tools a program of the calling host sees (visible-tools.ts): never run_code
 *   or itself. The index is rebuilt when that set changes, on the next search (500 tools: tens
 *   of milliseconds, bench/discovery.bench.ts); declarations come from the same generated types the
 *   program is checked against, so what it shows is what the check enforces.
 * - It is a direct tool only: programs do not see it (visible-tools.ts says why).
 * - Its result is bounded: declarations past the description budget's `maxTokens` are left out
 *   and counted in `omitted` (the first match is always given, cut with a visible comment if it
 *   alone is over).
 * - The ranking is the default one (search-index.ts: field-aware, local, no dependency) unless
 *   the host plugs in its own with `rank` (an embedding index, say). Whatever ranks, an exact
 *   tool or callable name comes first, and what a ranking returns is checked: names of tools
 *   that are not visible, repeats and anything past `limit` are dropped.
 */
import { callableNameOf, declareTool } from '../../codegen/index.js';
import { defineTool, errorText, InvalidOptionError, ON_REGISTER, REGISTERS_ITSELF, type Tool, type ToolHost } from '../../tools/index.js';
import { estimateTokens, resolveDescriptionBudget, type DescriptionBudget } from './description-budget.js';
import { ToolSearchIndex } from './search-index.js';
import { summaryOf } from './tool-index.js';
import { markToolSearchTool, toolTypesOf, visibleTools } from './visible-tools.js';

/** Options of {@link createToolSearchTool}. */
export interface ToolSearchOptions {
  /**
   * The host to register the tool on (at once; `host.register` of the returned tool is then
   * harmless), whose tools are searched and indexed before the first search. Without it, register
   * the tool yourself; a search always looks at the calling host's tools.
   */
  readonly host?: ToolHost;
  /** The tool's name (default `tool_search`). */
  readonly name?: string;
  /** Bounds one result: `maxTokens` of declarations (default 25,000, as run_code's description). */
  readonly budget?: Partial<Pick<DescriptionBudget, 'maxTokens'>>;
  /**
   * The host's own ranking instead of the default ({@link defaultToolRanker}): called with the
   * visible tools whenever that set changes, it returns the search for that set. Exact names
   * still come first; unknown names, repeats and names past `limit` are dropped. A ranking that
   * throws or rejects fails that tool_search call with its message.
   */
  readonly rank?: ToolRanker;
}

/**
 * A search over one set of tools: tool names (as registered), best first, at most `limit`.
 * May be asynchronous (an embedding service).
 */
export type ToolRanking = (query: string, limit: number) => readonly string[] | Promise<readonly string[]>;

/** Builds the {@link ToolRanking} of a tool set; called again when the visible tools change. */
export type ToolRanker = (tools: readonly Tool[]) => ToolRanking;

/** The default ranking: {@link ToolSearchIndex} (field-aware BM25, stemming, synonyms, server as a field). */
export const defaultToolRanker: ToolRanker = (tools) => {
  const index = new ToolSearchIndex(tools);
  return (query, limit) => index.search(query, limit).map((hit) => hit.tool.name);
};

/** The ranking of one tool set, and its exact names (tool and callable, lowercased) for the exact-name-first rule. */
interface BuiltRanking {
  readonly tools: readonly Tool[];
  readonly byName: ReadonlyMap<string, Tool>;
  readonly exact: ReadonlyMap<string, Tool>;
  readonly ranking: ToolRanking;
}

/** One match of a search. */
export interface ToolSearchMatch {
  /** The tool's name (as registered, e.g. `github.search-issues`). */
  readonly name: string;
  /** What a program calls: `tools.<callable>`. */
  readonly callable: string;
  /** The tool's description. */
  readonly description: string;
  /** Its TypeScript declaration as the program is checked against it (args, value, JSDoc). */
  readonly declaration: string;
}

/** The value of a tool_search call. */
export interface ToolSearchValue {
  /** Best first. */
  readonly matches: ToolSearchMatch[];
  /** Matches within `limit` left out because their declarations would pass the result budget (absent when none). */
  readonly omitted?: number;
}

/** The tool_search tool. */
export type ToolSearchTool = Tool<{ query: string; limit: number }, ToolSearchValue, { query: string; limit?: number }>;

/** Default and largest `limit` of one search. */
export const TOOL_SEARCH_LIMITS = Object.freeze({ defaultLimit: 5, maxLimit: 20 });

/** Creates the `tool_search` tool and, given `host`, registers it there (beside run_code). */
export function createToolSearchTool(options: ToolSearchOptions = {}): ToolSearchTool {
  const name = options.name ?? 'tool_search';
  const { maxTokens } = resolveDescriptionBudget({ maxTokens: options.budget?.maxTokens ?? 25_000 }, 'createToolSearchTool');
  const rank = options.rank ?? defaultToolRanker;
  if (typeof rank !== 'function') throw new InvalidOptionError({ where: 'createToolSearchTool', option: 'rank', value: rank, expected: 'a function (tools) => (query, limit) => tool names' });
  let built: BuiltRanking | undefined;

  const rankingFor = (host: ToolHost): BuiltRanking => {
    const tools = visibleTools(host);
    if (built && built.tools.length === tools.length && built.tools.every((t, i) => t === tools[i])) return built;
    const exact = new Map<string, Tool>();
    for (const tool of tools) {
      exact.set(tool.name.toLowerCase(), tool);
      exact.set(callableNameOf(tool.name).toLowerCase(), tool);
    }
    const ranking = rank(tools);
    if (typeof ranking !== 'function') throw new TypeError(`the host's rank option returned ${typeof ranking}, not a search function`);
    built = { tools, byName: new Map(tools.map((t) => [t.name, t])), exact, ranking };
    return built;
  };

  /** The ranking's answer, checked: visible tools only, no repeats, at most `limit`, an exact name first. */
  const rankedTools = async (host: ToolHost, query: string, limit: number): Promise<Tool[]> => {
    const { byName, exact, ranking } = rankingFor(host);
    let names: unknown;
    try {
      names = await ranking(query, limit);
    } catch (err) {
      throw new Error(`the tool ranking failed: ${errorText(err)}`);
    }
    if (!Array.isArray(names)) throw new Error(`the tool ranking returned ${names === null ? 'null' : typeof names}, not a list of tool names`);
    const out: Tool[] = [];
    const first = exact.get(query.trim().toLowerCase());
    if (first) out.push(first);
    for (const name of names) {
      if (out.length >= limit) break;
      const tool = typeof name === 'string' ? byName.get(name) : undefined;
      if (tool && !out.includes(tool)) out.push(tool);
    }
    return out.slice(0, limit);
  };

  const tool = defineTool({
    name,
    description:
      'Find tools for run_code programs by what they do. Returns the exact TypeScript declaration (arguments, result, documentation) of the best matching tools, best first. ' +
      'Call it before using a tool whose declaration you have not seen; search with a few words ("read text file", "open pull requests") or a tool name from the index.',
    parameters: {
      query: { type: 'string', required: true, minLength: 1, maxLength: 1_000, description: 'What the tool should do, or its name' },
      limit: { type: 'integer', minimum: 1, maximum: TOOL_SEARCH_LIMITS.maxLimit, default: TOOL_SEARCH_LIMITS.defaultLimit, description: 'Most matches to return' },
    },
    output: {
      schema: {
        type: 'object',
        properties: {
          matches: {
            type: 'array',
            required: true,
            items: {
              type: 'object',
              properties: {
                name: { type: 'string', required: true },
                callable: { type: 'string', required: true },
                description: { type: 'string', required: true },
                declaration: { type: 'string', required: true },
              },
            },
          },
          omitted: { type: 'integer', minimum: 1 },
        },
      },
      render: (args, value) => renderSearch(args.query, value as ToolSearchValue),
    },
    isConcurrencySafe: true,
    async execute(args, exec) {
      const hits = await rankedTools(exec.host, args.query, args.limit);
      if (hits.length === 0) return { matches: [] };
      const types = toolTypesOf(rankingFor(exec.host).tools);
      const matches: ToolSearchMatch[] = [];
      let room = maxTokens;
      for (const found of hits) {
        let declaration = declareTool(types, found);
        const cost = estimateTokens(declaration);
        if (cost > room && matches.length > 0) break;
        if (cost > room) declaration = cutDeclaration(declaration, room);
        room -= cost;
        matches.push({ name: found.name, callable: types.callableNames.get(found.name)!, description: found.description, declaration });
      }
      const omitted = hits.length - matches.length;
      return omitted > 0 ? { matches, omitted } : { matches };
    },
    presentResult: (args, value) => ({
      card: 'search',
      phase: 'result',
      query: args.query,
      hits: value.matches.map((m) => ({ title: m.callable, location: m.name, snippet: summaryOf(m.description) })),
    }),
  });
  const withHost = Object.freeze(
    Object.defineProperties({ ...tool }, {
      [REGISTERS_ITSELF]: { enumerable: false, value: true },
      [ON_REGISTER]: {
      enumerable: false,
      value: (host: ToolHost) => {
        // Build the index off the request path; a failure only means the first search builds it.
        const warm = setTimeout(() => {
          try {
            rankingFor(host);
          } catch {
            /* built on the first search */
          }
        }, 0);
        warm.unref?.();
      },
      },
    }),
  ) as unknown as ToolSearchTool;
  markToolSearchTool(withHost);
  options.host?.register(withHost);
  return withHost;
}

/** A declaration cut to about `maxTokens`, saying so in a comment. */
function cutDeclaration(declaration: string, maxTokens: number): string {
  let end = Math.max(0, maxTokens * 4 - 200);
  while (end > 0 && estimateTokens(declaration.slice(0, end)) > maxTokens - 50) end = Math.floor(end * 0.9);
  return `${declaration.slice(0, end).replace(/[\uD800-\uDBFF]$/, '')}\n// … cut: this declaration has ${declaration.length} characters, over the tool_search result budget. The type check still knows the whole type.\n`;
}

function renderSearch(query: string, value: ToolSearchValue): string {
  if (value.matches.length === 0) return `No tool matches ${JSON.stringify(query)}. Search with other words, or use a name from the run_code description's list.`;
  const blocks = value.matches.map((m) => (m.name === m.callable ? m.declaration : `// tool "${m.name}"\n${m.declaration}`));
  const omitted = value.omitted ? `\n${value.omitted} more match(es) left out: their declarations would pass the result budget. Search more precisely or with a lower limit.` : '';
  return `${value.matches.length} tool(s) for ${JSON.stringify(query)}, best first; call them in run_code as tools.<name>:\n\`\`\`ts\n${blocks.join('\n')}\`\`\`${omitted}`;
}
