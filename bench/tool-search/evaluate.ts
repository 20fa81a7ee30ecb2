/**
 * Scores a tool ranking on the labelled queries: top-1 (the first tool answers the query) and
 * top-3 (one of the first three does), with each miss and what came first instead. The bench
 * (bench/tool-search.bench.ts) runs it on the whole catalog; evaluation.test.ts runs the small
 * catalog in CI and holds the targets (top-3 >= 95%, top-1 >= 80%).
 */
import type { Tool } from '../../tools/index.js';
import { evaluationCatalog, SERVICES } from './catalog.js';
import { QUERIES, type LabelledQuery } from './queries.js';

/** A ranking under test: tool names, best first. */
export type Ranking = (query: string, limit: number) => readonly string[];

/** A query the ranking did not answer first. */
export interface Miss {
  readonly query: string;
  readonly answers: readonly string[];
  /** The first three tools it gave. */
  readonly got: readonly string[];
  /** Whether one of them answers the query. */
  readonly inTop3: boolean;
}

/** How a ranking did. */
export interface EvaluationScore {
  readonly queries: number;
  readonly top1: number;
  readonly top3: number;
  readonly top1Rate: number;
  readonly top3Rate: number;
  readonly misses: readonly Miss[];
}

/** Runs every query through `rank` and scores it. */
export function evaluateRanking(rank: Ranking, queries: readonly LabelledQuery[] = QUERIES): EvaluationScore {
  let top1 = 0;
  let top3 = 0;
  const misses: Miss[] = [];
  for (const { query, answers } of queries) {
    const got = rank(query, 3).slice(0, 3);
    const first = got[0] !== undefined && answers.includes(got[0]);
    const inTop3 = got.some((name) => answers.includes(name));
    if (first) top1++;
    if (inTop3) top3++;
    if (!first) misses.push({ query, answers, got, inTop3 });
  }
  return { queries: queries.length, top1, top3, top1Rate: top1 / queries.length, top3Rate: top3 / queries.length, misses };
}

/** Services of the small evaluation run in CI: the commerce core, where the look-alikes are. */
const SMALL_SERVICES = new Set(['shopify', 'stripe', 'woocommerce', 'square', 'netsuite', 'quickbooks', 'wms', '']);

/** The small evaluation: the commerce services' tools, and the queries answered only by them. */
export function smallEvaluation(): { tools: Tool[]; queries: LabelledQuery[] } {
  const tools = evaluationCatalog(SERVICES.filter((s) => SMALL_SERVICES.has(s.namespace)));
  const names = new Set(tools.map((t) => t.name));
  return { tools, queries: QUERIES.filter((q) => q.answers.every((a) => names.has(a))) };
}

/** The whole evaluation: every tool of the catalog and every query. */
export function fullEvaluation(): { tools: Tool[]; queries: readonly LabelledQuery[] } {
  return { tools: evaluationCatalog(), queries: QUERIES };
}

/** A miss on one line: the query, what answers it, what came first. */
export function formatMiss(miss: Miss): string {
  return `${miss.inTop3 ? 'top-3' : 'MISS '} ${JSON.stringify(miss.query)} -> ${miss.got.join(', ') || '(nothing)'} (want ${miss.answers.join(' | ')})`;
}
