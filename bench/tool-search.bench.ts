/**
 * tool_search ranking (issue 30): the labelled evaluation of bench/tool-search, the ranking
 * before issue 30 (baseline-ranker.ts) against today's default, in the same run.
 * - Accuracy: top-1 and top-3 on the main queries (203 tools of 24 services, 85 queries), on the
 *   held-out queries (written after the ranking was tuned), and on the small catalog CI runs.
 *   Targets: top-3 >= 95%, top-1 >= 80% (main set).
 * - Time at 500 tools (the evaluation catalog padded with examples/tool-catalog.ts): building the
 *   index, and one search (every query, many rounds). Target: at most 1 ms per query.
 */
import { syntheticCatalog, CATALOG_CAPACITY } from '../examples/tool-catalog.js';
import { defaultToolRanker, type ToolRanker, type ToolRanking } from '../runtime/index.js';
import type { Tool } from '../tools/index.js';
import { baselineRanker } from './tool-search/baseline-ranker.js';
import { evaluateRanking, formatMiss, fullEvaluation, smallEvaluation } from './tool-search/evaluate.js';
import { HELD_OUT_QUERIES, QUERIES } from './tool-search/queries.js';

const RANKERS: readonly [string, ToolRanker][] = [
  ['before (MiniSearch, 1240c31)', baselineRanker],
  ['after (default)', defaultToolRanker],
];

const sync = (ranking: ToolRanking) => (query: string, limit: number) => ranking(query, limit) as readonly string[];
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

const full = fullEvaluation();
const small = smallEvaluation();
const accuracy = RANKERS.flatMap(([label, rank]) => {
  const onFull = sync(rank(full.tools));
  const onSmall = sync(rank(small.tools));
  return [
    ['main', full.tools.length, evaluateRanking(onFull, QUERIES)],
    ['held-out', full.tools.length, evaluateRanking(onFull, HELD_OUT_QUERIES)],
    ['small (CI)', small.tools.length, evaluateRanking(onSmall, small.queries)],
  ].map(([set, tools, s]) => {
    const score = s as ReturnType<typeof evaluateRanking>;
    return { ranking: label, set, tools, queries: score.queries, 'top-1': `${score.top1} (${pct(score.top1Rate)})`, 'top-3': `${score.top3} (${pct(score.top3Rate)})` };
  });
});
console.log('Accuracy (labelled queries; a query may accept several tools where its words fit several services)');
console.table(accuracy);

const after = evaluateRanking(sync(defaultToolRanker(full.tools)), QUERIES);
console.log(`\nDefault ranking, main set: top-1 ${pct(after.top1Rate)} (target >= 80%: ${after.top1Rate >= 0.8 ? 'met' : 'NOT met'}), top-3 ${pct(after.top3Rate)} (target >= 95%: ${after.top3Rate >= 0.95 ? 'met' : 'NOT met'})`);
console.log('Its misses (top-3: the answer is 2nd or 3rd; MISS: not in the first three):');
for (const miss of after.misses) console.log(`  ${formatMiss(miss)}`);
const heldOut = evaluateRanking(sync(defaultToolRanker(full.tools)), HELD_OUT_QUERIES);
console.log('Held-out misses:');
for (const miss of heldOut.misses) console.log(`  ${formatMiss(miss)}`);

// 500 tools: the evaluation catalog and synthetic padding (names it already has left out).
const names = new Set(full.tools.map((t) => t.name));
const padding = syntheticCatalog(CATALOG_CAPACITY).filter((t) => !names.has(t.name));
const tools500: Tool[] = [...full.tools, ...padding].slice(0, 500);
const queries = [...QUERIES, ...HELD_OUT_QUERIES].map((q) => q.query);

const quantile = (samples: number[], q: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

const timing = RANKERS.map(([label, rank]) => {
  const builds: number[] = [];
  let ranking = rank(tools500);
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    ranking = rank(tools500);
    builds.push(performance.now() - t0);
  }
  for (const query of queries) ranking(query, 5); // warm-up
  const searches: number[] = [];
  for (let round = 0; round < 20; round++) {
    for (const query of queries) {
      const t0 = performance.now();
      ranking(query, 5);
      searches.push(performance.now() - t0);
    }
  }
  const mean = searches.reduce((a, b) => a + b, 0) / searches.length;
  return { ranking: label, tools: tools500.length, 'build p50 ms': quantile(builds, 0.5).toFixed(1), 'search mean ms': mean.toFixed(3), 'search p50 ms': quantile(searches, 0.5).toFixed(3), 'search p95 ms': quantile(searches, 0.95).toFixed(3), searches: searches.length };
});
console.log(`\nTime at ${tools500.length} tools (${queries.length} queries x 20 rounds, limit 5)`);
console.table(timing);
const [before, now] = timing as [(typeof timing)[0], (typeof timing)[0]];
const mean = Number(now['search mean ms']);
console.log(`default search: ${mean.toFixed(3)} ms per query, ${(mean / Number(before['search mean ms'])).toFixed(2)}x the ranking before (target <= 1 ms: ${mean <= 1 ? 'met' : 'NOT met'}); p95 ${now['search p95 ms']} ms`);
