/**
 * The tool_search ranking before issue 30, kept as it was (runtime/discovery/search-index.ts at
 * 1240c31) so the bench measures the old and the new ranking in the same run: MiniSearch (BM25+,
 * prefix and fuzzy matching) over the tool and callable names (weighted most), descriptions,
 * parameter names and parameter descriptions, with a light suffix rule and an exact name first.
 * It is also an example of a host's own ranking: `createToolSearchTool({ rank: baselineRanker })`.
 */
import MiniSearch from 'minisearch';
import type { Tool } from '../../tools/index.js';
import type { ToolRanker } from '../../runtime/index.js';
import { callableNameOf } from '../../codegen/index.js';

/** Most characters of one field of one tool that are indexed. */
const MAX_FIELD_CHARS = 8_000;
/** Most parameters (at any depth) of one tool whose names are indexed. */
const MAX_PARAMETERS = 200;
const MAX_DEPTH = 4;

const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'in', 'into', 'is', 'it', 'its', 'of', 'on', 'or', 'that', 'the', 'this', 'to', 'with', 'use', 'using', 'tool', 'tools']);

const WORD = /[\p{L}\p{N}]+/gu;
const ASCII_WORD = /[A-Za-z0-9]+/g;
const HUMP = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const HAS_UPPER = /\p{Lu}/u;

/** Words of a text: letter/digit runs, split at camelCase humps (case kept; {@link processTerm} lowercases). */
function tokenize(text: string): string[] {
  const bounded = text.slice(0, MAX_FIELD_CHARS);
  // Unicode property escapes are slow in V8: ASCII text (most of it) takes the plain classes.
  const words = (/^[\x00-\x7f]*$/.test(bounded) ? bounded.match(ASCII_WORD) : bounded.match(WORD)) ?? [];
  const out: string[] = [];
  for (const word of words) {
    if (HAS_UPPER.test(word) && word !== word.toUpperCase()) out.push(...word.split(HUMP));
    else out.push(word);
  }
  return out;
}

/** A term as indexed and queried: lowercased, a few English suffixes off, stop words dropped. */
function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  if (STOP_WORDS.has(t)) return null;
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 5 && t.endsWith('ing')) return t.slice(0, -3);
  if (t.length > 4 && t.endsWith('ed') && !t.endsWith('eed')) return t.slice(0, -2);
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss') && !t.endsWith('us')) return t.slice(0, -1);
  return t;
}

interface ParameterText {
  names: string[];
  descriptions: string[];
}

function walkParameters(schema: unknown, out: ParameterText, depth: number): void {
  if (depth > MAX_DEPTH || typeof schema !== 'object' || schema === null || out.names.length >= MAX_PARAMETERS) return;
  const s = schema as Record<string, unknown>;
  const properties = s.properties;
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, child] of Object.entries(properties)) {
      if (out.names.length >= MAX_PARAMETERS) return;
      out.names.push(name);
      const description = (child as { description?: unknown } | null)?.description;
      if (typeof description === 'string') out.descriptions.push(description.slice(0, 500));
      walkParameters(child, out, depth + 1);
    }
  }
  for (const key of ['items', 'additionalProperties'] as const) walkParameters(s[key], out, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = s[key];
    if (Array.isArray(list)) for (const item of list.slice(0, 20)) walkParameters(item, out, depth + 1);
  }
}

interface IndexedTool {
  id: number;
  name: string;
  params: string;
  description: string;
  details: string;
}


/** A search index over one tool set. Build a new one when the set changes (500 tools: 35-80 ms on a loaded 2-vCPU machine, about a third of generating their declarations). */
class BaselineIndex {
  private readonly index: MiniSearch<IndexedTool>;
  private readonly byExactName = new Map<string, number>();

  constructor(private readonly tools: readonly Tool[]) {
    this.index = new MiniSearch<IndexedTool>({
      fields: ['name', 'params', 'description', 'details'],
      tokenize,
      processTerm,
      searchOptions: {
        boost: { name: 4, params: 1.5, description: 1, details: 0.5 },
        prefix: (term) => term.length >= 3,
        fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
        combineWith: 'OR',
      },
    });
    const docs = tools.map((tool, id): IndexedTool => {
      const callable = callableNameOf(tool.name);
      this.byExactName.set(tool.name.toLowerCase(), id);
      this.byExactName.set(callable.toLowerCase(), id);
      const params: ParameterText = { names: [], descriptions: [] };
      walkParameters(tool.parametersJsonSchema, params, 0);
      return {
        id,
        name: `${tool.name} ${callable === tool.name ? '' : callable}`,
        params: params.names.join(' '),
        description: tool.description.slice(0, MAX_FIELD_CHARS),
        details: params.descriptions.join('\n').slice(0, MAX_FIELD_CHARS),
      };
    });
    this.index.addAll(docs);
  }

  /** Tools in this index. */
  get size(): number {
    return this.tools.length;
  }

  /** The best `limit` matches for `query`, best first (an exact name first of all). */
  search(query: string, limit: number): Tool[] {
    const hits = this.index.search(query).map((r) => ({ id: r.id as number, score: r.score }));
    const exact = this.byExactName.get(query.trim().toLowerCase());
    if (exact !== undefined) {
      const rest = hits.filter((h) => h.id !== exact);
      hits.splice(0, hits.length, { id: exact, score: Number.POSITIVE_INFINITY }, ...rest);
    }
    return hits.slice(0, limit).map((h) => this.tools[h.id]!);
  }
}

/** The pre-issue-30 ranking as a {@link ToolRanker}. */
export const baselineRanker: ToolRanker = (tools) => {
  const index = new BaselineIndex(tools);
  return (query, limit) => index.search(query, limit).map((tool) => tool.name);
};
