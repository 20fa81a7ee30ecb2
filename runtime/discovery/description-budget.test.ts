import { InvalidOptionError } from '../../tools/index.js';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { syntheticCatalog } from '../../examples/tool-catalog.js';
import { fixtureTools } from '../../codegen/fixtures/fixture-tools.js';
import { DEFAULT_DESCRIPTION_BUDGET, estimateTokens, MIN_DESCRIPTION_TOKENS, resolveDescriptionBudget } from './description-budget.js';
import { toolIndexListing } from './tool-index.js';
import { callableNameOf } from '../../codegen/index.js';
import { toolTypesOf } from './visible-tools.js';

describe('when the budget estimates tokens (characters / 4, one per non-ASCII unit)', () => {
  // The texts the budget is applied to: full declarations and index lines of realistic catalogs.
  const catalog = syntheticCatalog(200);
  const texts = {
    'fixture declarations': toolTypesOf(fixtureTools).declarations,
    '200-tool declarations': toolTypesOf(catalog).declarations,
    '200-tool index': toolIndexListing(catalog.map((t) => ({ callable: callableNameOf(t.name), description: t.description })), 1e9, () => '').text,
  };
  const prose = 'Liest die Datei vollständig und gibt ihren Inhalt zurück. ファイルを読み込み、その内容を返します。検索結果は更新日時の新しい順です。';

  for (const [name, text] of Object.entries(texts)) {
    it(`never underestimates gpt-tokenizer (o200k) on ${name}, and overestimates by at most 40%`, () => {
      const real = countTokens(text);
      const estimate = estimateTokens(text);
      expect(estimate).toBeGreaterThanOrEqual(real);
      expect(estimate).toBeLessThanOrEqual(Math.ceil(real * 1.4));
    });
  }

  it('never underestimates German and Japanese prose either (one token per non-ASCII unit; at most twice the real count)', () => {
    expect(estimateTokens(prose)).toBeGreaterThanOrEqual(countTokens(prose));
    expect(estimateTokens(prose)).toBeLessThanOrEqual(2 * countTokens(prose));
  });

  it('counts the empty text as nothing and rounds a partial token up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abc')).toBe(1);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('ü')).toBe(1);
  });
});

describe('when budget options are given', () => {
  it('fills the defaults', () => {
    expect(resolveDescriptionBudget(undefined)).toEqual(DEFAULT_DESCRIPTION_BUDGET);
    expect(resolveDescriptionBudget({ maxTokens: 50_000 })).toEqual({ indexAboveTokens: 10_000, maxTokens: 50_000 });
  });

  it('refuses a value that is not a whole number of tokens in range, naming the option', () => {
    expect(() => resolveDescriptionBudget({ maxTokens: 10 })).toThrow(`createRunCodeTool: descriptionBudget.maxTokens must be a whole number of tokens from ${MIN_DESCRIPTION_TOKENS} to 10000000, got 10`);
    expect(() => resolveDescriptionBudget({ indexAboveTokens: -1 })).toThrow(/descriptionBudget\.indexAboveTokens .* got -1/);
    expect(() => resolveDescriptionBudget({ indexAboveTokens: 1.5 })).toThrow(InvalidOptionError);
    expect(() => resolveDescriptionBudget({ maxTokens: '9' as unknown as number })).toThrow(/got "9"/);
  });
});
