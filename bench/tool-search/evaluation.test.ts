/**
 * The tool_search evaluation in CI (issue 30): the small catalog (the commerce services, where
 * the look-alikes are) with its labelled queries, held to the targets: the right tool first for
 * at least 80% of the queries, among the first three for at least 95%. The whole evaluation, the
 * held-out queries and the timing at 500 tools are in `npm run bench -- tool-search`.
 */
import { describe, expect, it } from 'vitest';
import { callableNameOf } from '../../codegen/index.js';
import { defaultToolRanker } from '../../runtime/index.js';
import { evaluateRanking, formatMiss, fullEvaluation, smallEvaluation } from './evaluate.js';
import { HELD_OUT_QUERIES } from './queries.js';

describe('the labelled evaluation', () => {
  const full = fullEvaluation();
  const names = new Set(full.tools.map((t) => t.name));

  it('is as large as the issue asks, and every answer is a tool of the catalog', () => {
    expect(full.tools.length).toBeGreaterThanOrEqual(200);
    expect(full.queries.length).toBeGreaterThanOrEqual(60);
    for (const { query, answers } of [...full.queries, ...HELD_OUT_QUERIES]) {
      expect(answers.length, query).toBeGreaterThan(0);
      for (const answer of answers) expect(names.has(answer), `${query} -> ${answer}`).toBe(true);
    }
  });

  it('asks in plain words: no query names a tool', () => {
    for (const { query } of [...full.queries, ...HELD_OUT_QUERIES]) {
      const text = query.toLowerCase();
      for (const tool of full.tools) {
        expect(text.includes(tool.name.toLowerCase()) || text.includes(callableNameOf(tool.name).toLowerCase()), `${query} names ${tool.name}`).toBe(false);
      }
    }
  });
});

describe('when tool_search ranks the small catalog', () => {
  const { tools, queries } = smallEvaluation();
  const ranking = defaultToolRanker(tools);
  const score = evaluateRanking((query, limit) => ranking(query, limit) as readonly string[], queries);

  it(`puts the right tool first for at least 80% of ${queries.length} queries, and among the first three for at least 95%`, () => {
    expect(tools.length).toBeGreaterThanOrEqual(90);
    expect(queries.length).toBeGreaterThanOrEqual(40);
    const report = `top-1 ${score.top1}/${score.queries}, top-3 ${score.top3}/${score.queries}\n${score.misses.map(formatMiss).join('\n')}`;
    expect(score.top1Rate, report).toBeGreaterThanOrEqual(0.8);
    expect(score.top3Rate, report).toBeGreaterThanOrEqual(0.95);
  });
});
