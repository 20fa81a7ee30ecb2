/**
 * The default ranking behind tool_search: a field-aware BM25 over each tool's words, built for
 * queries a model writes ("list customers", "stock levels in the warehouse", "refund a card
 * payment in Stripe") against catalogs where several services have look-alike tools.
 *
 * Fields, weighted: the server (the tool name's part before its first `.`, as MCP import names
 * tools `<server>.<tool>`), the name's own words (`customers_search` -> customers, search;
 * `searchContacts` -> search, contacts), the first sentence of the description, the whole
 * description, parameter names and parameter descriptions. Terms are stemmed and expanded with a
 * small synonym table (search-terms.ts); a query word no tool has is matched to words it
 * begins (`deploym`) or, five letters and up, to words one edit away (a typo).
 *
 * Why more than plain BM25 over the text (the ranking before issue 30): descriptions of other
 * services' tools mention customers, orders and stock all the time, so "list customers" put an
 * orders tool first. Here a query word found in a tool's name or server counts most, a tool
 * whose name words the query covers gets a bonus, a tool that matches more of the query's words
 * beats one that matches one word often, and ties go to the tool whose name matches more of the
 * query. bench/tool-search (a labelled catalog of look-alikes) measures it against the old one.
 *
 * An exact tool or callable name ranks first. What a tool puts into the index is bounded (each
 * field's text, the nesting and the number of parameters walked), so a hostile schema costs the
 * index no more than an ordinary one.
 */
import type { Tool } from '../../tools/index.js';
import { callableNameOf } from '../../codegen/index.js';
import { leadingVerbsOf, MAX_TERM_TEXT_CHARS, numberedTermsOf, synonymsOf, termsOf } from './search-terms.js';

export { processTerm, tokenize } from './search-terms.js';

/** Most parameters (at any depth) of one tool whose names are indexed. */
const MAX_PARAMETERS = 200;
const MAX_DEPTH = 4;
/** Most query terms used (a query is at most 1,000 characters; a few words in practice). */
const MAX_QUERY_TERMS = 32;

/** The fields of a tool, and how much a match in each counts. */
const FIELDS = ['server', 'name', 'summary', 'description', 'params', 'details'] as const;
/** How the default ranking weighs its evidence (measured on bench/tool-search; see the file note). */
export const RANKING_WEIGHTS = {
  /** Per field, in {@link FIELDS} order. */
  fields: [3, 4, 1.5, 1, 1, 0.4],
  /** BM25's saturation and length normalization. */
  k1: 1.2,
  b: 0.5,
  /** How much a synonym, a prefix and a near miss count against the word itself. */
  synonym: 0.6,
  prefix: 0.7,
  fuzzy: 0.45,
  /** How much a query word found in another tool of the same server counts, at most. */
  serverContext: 0.5,
  /** The bonus for each plural query word matched by a plural name word. */
  agreement: 0.15,
  /** A tool matching none of the query's weight keeps this share of its score; all of it, all. */
  coverageFloor: 0.25,
  /** The bonus of a tool whose name words the query covers entirely. */
  nameCoverage: 0.5,
  /** How much more the query's first word counts. */
  leading: 1.5,
};
const W = RANKING_WEIGHTS;

const SENTENCE_END = /[.!?](?=\s|$)/;

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

/** A tool's server (the part of its name before the first `.`) and the rest. */
function splitName(name: string): { server: string; local: string } {
  const dot = name.indexOf('.');
  return dot > 0 ? { server: name.slice(0, dot), local: name.slice(dot + 1) } : { server: '', local: name };
}

/** One posting: a tool, and how often the term is in each field. */
interface Posting {
  readonly doc: number;
  readonly tf: number[];
}

/** A ranked match. */
export interface SearchHit {
  readonly tool: Tool;
  readonly score: number;
}

/** One query term's variants: a stem and how much a match of it counts. */
type Variants = Map<string, number>;

/** A query term in one tool: its best score, and the strongest variant found in the tool's name. */
interface TermMatch {
  score: number;
  nameVariant: string | undefined;
  nameWeight: number;
}

/** A tool's running total over the query's terms. */
interface Total {
  score: number;
  /** The weights of the query terms it matched (a term matched through its server: a part). */
  covered: number;
  nameMatched: number;
  /** Plural query words matched by a plural name word (lists and searches are named in the plural). */
  agreements: number;
}

function totalOf(totals: Map<number, Total>, doc: number): Total {
  let total = totals.get(doc);
  if (total === undefined) totals.set(doc, (total = { score: 0, covered: 0, nameMatched: 0, agreements: 0 }));
  return total;
}

/** A search index over one tool set. Build a new one when the set changes. */
export class ToolSearchIndex {
  private readonly byExactName = new Map<string, number>();
  private readonly postings = new Map<string, Posting[]>();
  /** The vocabulary, sorted (prefix lookups). */
  private readonly vocabulary: string[];
  /** Field lengths per tool, and their averages. */
  private readonly lengths: number[][];
  private readonly averages: number[];
  /** Distinct name words (server and name) per tool. */
  private readonly nameWords: Set<string>[];
  /** Per tool: its name's words and whether each was plural. */
  private readonly nameNumbers: Map<string, boolean>[];
  /** Per tool: its server ('' for none); per server: its tools. */
  private readonly servers: string[];
  private readonly serverTools = new Map<string, number[]>();

  constructor(private readonly tools: readonly Tool[]) {
    const sums = FIELDS.map(() => 0);
    this.lengths = [];
    this.nameWords = [];
    this.nameNumbers = [];
    this.servers = [];
    tools.forEach((tool, id) => {
      const callable = callableNameOf(tool.name);
      this.byExactName.set(tool.name.toLowerCase(), id);
      this.byExactName.set(callable.toLowerCase(), id);
      const { server, local } = splitName(tool.name);
      const params: ParameterText = { names: [], descriptions: [] };
      walkParameters(tool.parametersJsonSchema, params, 0);
      const description = tool.description.slice(0, MAX_TERM_TEXT_CHARS);
      const end = SENTENCE_END.exec(description);
      const fields = [
        termsOf(server),
        termsOf(local),
        termsOf(end ? description.slice(0, end.index) : description),
        termsOf(description),
        termsOf(params.names.join(' ')),
        termsOf(params.descriptions.join('\n')),
      ];
      this.nameWords.push(new Set([...fields[0]!, ...fields[1]!]));
      this.nameNumbers.push(numberedTermsOf(local));
      const serverKey = server.toLowerCase();
      this.servers.push(serverKey);
      if (serverKey !== '') {
        if (!this.serverTools.has(serverKey)) this.serverTools.set(serverKey, []);
        this.serverTools.get(serverKey)!.push(id);
      }
      this.lengths.push(fields.map((f) => f.length));
      fields.forEach((terms, f) => {
        sums[f]! += terms.length;
        for (const term of terms) this.add(term, id, f);
      });
    });
    this.averages = sums.map((sum) => Math.max(1, sum / Math.max(1, tools.length)));
    this.vocabulary = [...this.postings.keys()].sort();
  }

  private add(term: string, doc: number, field: number): void {
    let list = this.postings.get(term);
    if (list === undefined) this.postings.set(term, (list = []));
    let last = list[list.length - 1];
    if (last === undefined || last.doc !== doc) list.push((last = { doc, tf: FIELDS.map(() => 0) }));
    last.tf[field]!++;
  }

  /** Tools in this index. */
  get size(): number {
    return this.tools.length;
  }

  /** The best `limit` matches for `query`, best first (an exact name first of all). */
  search(query: string, limit: number): SearchHit[] {
    const exact = this.byExactName.get(query.trim().toLowerCase());
    const numbered = [...numberedTermsOf(query)].slice(0, MAX_QUERY_TERMS);
    const n = this.tools.length;
    const totals = new Map<number, Total>();
    let matchable = 0;
    let position = 0;
    for (const [term, plural] of numbered) {
      const leading = position++ === 0;
      const variants = this.variants(term, leading);
      if (variants.size === 0) continue; // a word no tool has counts for none and against none
      // The first word is the head of the request ("refund an order", "tickets mentioning a refund").
      const emphasis = leading ? W.leading : 1;
      // Per tool: the best variant's score, and the best variant found in its name.
      const best = new Map<number, TermMatch>();
      let termWeight = 0;
      for (const [variant, weight] of variants) {
        const list = this.postings.get(variant)!;
        const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
        termWeight = Math.max(termWeight, idf * weight * emphasis);
        for (const { doc, tf } of list) {
          let s = 0;
          for (let f = 0; f < FIELDS.length; f++) {
            const count = tf[f]!;
            if (count === 0) continue;
            const norm = 1 - W.b + (W.b * this.lengths[doc]![f]!) / this.averages[f]!;
            s += (W.fields[f]! * count * (W.k1 + 1)) / (count + W.k1 * norm);
          }
          s *= idf * weight * emphasis;
          const inName = tf[0]! + tf[1]! > 0;
          const match = best.get(doc);
          if (match === undefined) best.set(doc, { score: s, nameVariant: inName ? variant : undefined, nameWeight: inName ? weight : 0 });
          else {
            if (s > match.score) match.score = s;
            if (inName && weight > match.nameWeight) [match.nameVariant, match.nameWeight] = [variant, weight];
          }
        }
      }
      matchable += termWeight;
      // The term in the tool itself.
      const serverBest = new Map<string, number>();
      const serverHits = new Map<string, number>();
      const serverNamed = new Set<string>();
      for (const [doc, match] of best) {
        const total = totalOf(totals, doc);
        total.score += match.score;
        total.covered += termWeight;
        if (match.nameVariant !== undefined) {
          total.nameMatched++;
          if (plural && this.nameNumbers[doc]!.get(match.nameVariant) === true) total.agreements++;
        }
        const server = this.servers[doc]!;
        if (server === '') continue;
        serverHits.set(server, (serverHits.get(server) ?? 0) + 1);
        if (match.nameVariant !== undefined) serverNamed.add(server);
        if (match.score > (serverBest.get(server) ?? 0)) serverBest.set(server, match.score);
      }
      // The term elsewhere in the tool's server: "the WordPress shop" names WooCommerce once, in
      // one of its tools' descriptions, and every tool of that server is in the shop. It counts
      // as much as the word is the server's own: fully for a word only that server's tools have,
      // little for a word every server has.
      for (const [server, top] of serverBest) {
        // A word in one of the server's tool names is what that tool is about (`bins`), not
        // where the server's tools are.
        if (serverNamed.has(server)) continue;
        const own = W.serverContext * (serverHits.get(server)! / best.size);
        for (const doc of this.serverTools.get(server)!) {
          if (best.has(doc)) continue;
          const total = totalOf(totals, doc);
          total.score += own * top;
          total.covered += own * termWeight;
        }
      }
    }
    const ranked: { id: number; score: number; nameMatched: number }[] = [];
    for (const [id, { score, covered, nameMatched, agreements }] of totals) {
      // More of the query matched (rare words counting more) beats one word matched often; a
      // name the query covers, and a plural name for a plural query word, count more.
      const coverage = matchable === 0 ? 0 : covered / matchable;
      const words = this.nameWords[id]!;
      const nameCoverage = words.size === 0 ? 0 : Math.min(1, nameMatched / words.size);
      ranked.push({ id, score: score * (W.coverageFloor + (1 - W.coverageFloor) * coverage) * (1 + W.nameCoverage * nameCoverage) * (1 + W.agreement * agreements), nameMatched });
    }
    ranked.sort((a, b) => b.score - a.score || b.nameMatched - a.nameMatched || compareNames(this.tools[a.id]!.name, this.tools[b.id]!.name));
    if (exact !== undefined) {
      const at = ranked.findIndex((h) => h.id === exact);
      if (at >= 0) ranked.splice(at, 1);
      ranked.unshift({ id: exact, score: Number.POSITIVE_INFINITY, nameMatched: 0 });
    }
    return ranked.slice(0, limit).map((h) => ({ tool: this.tools[h.id]!, score: h.score }));
  }

  /**
   * A query term's variants in this vocabulary: itself, its synonyms (and, for the query's first
   * word, the operation it names as a verb), the words it begins, a near miss.
   */
  private variants(term: string, leading: boolean): Variants {
    const out: Variants = new Map();
    const put = (variant: string, weight: number) => {
      if (this.postings.has(variant) && (out.get(variant) ?? 0) < weight) out.set(variant, weight);
    };
    put(term, 1);
    for (const synonym of synonymsOf(term)) put(synonym, W.synonym);
    if (leading) for (const verb of leadingVerbsOf(term)) put(verb, W.synonym);
    if (term.length >= 3) {
      for (let i = lowerBound(this.vocabulary, term); i < this.vocabulary.length && this.vocabulary[i]!.startsWith(term); i++) {
        const word = this.vocabulary[i]!;
        if (word !== term) put(word, (W.prefix * term.length) / word.length);
      }
    }
    if (out.size === 0 && term.length >= 5) {
      for (const word of this.vocabulary) if (Math.abs(word.length - term.length) <= 1 && withinOneEdit(term, word)) put(word, W.fuzzy);
    }
    return out;
  }
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first index of a sorted list whose item is not below `key`. */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether `a` and `b` are at most one insertion, deletion, substitution or swap of neighbours apart. */
function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length === b.length) {
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long.length - short.length !== 1) return false;
  let i = 0;
  while (i < short.length && short[i] === long[i]) i++;
  return short.slice(i) === long.slice(i + 1);
}
