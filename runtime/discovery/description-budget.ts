/**
 * The size budget of what a tool set puts into the model's context before it writes a line:
 * run_code's description and tool_search's result.
 *
 * Why a budget and why in tokens: the full declarations of 27 small MCP tools are already
 * ~3,900 tokens, and a hostile or merely large catalog made the description 4.2 M characters
 * (about 1 M tokens), past the MCP SDK client's 10 MiB message limit. Context is paid in tokens,
 * so the budget is stated in tokens. The runtime cannot ship a tokenizer for every model, so it
 * counts with an estimate: a quarter token per ASCII character (English prose and TypeScript run
 * at 4.2-4.7 characters per o200k token on the catalogs measured in the tests, so this
 * overestimates by 5-20%) and one token per non-ASCII UTF-16 unit (CJK text is about one token
 * per character; most accented letters are cheaper). Text made to tokenize badly (random ASCII
 * symbols) can hold about twice the estimate; the budget still bounds its characters hard
 * (at most four characters per budgeted token), which is what keeps a `tools/list` reply small.
 */
import { InvalidOptionError } from '../../tools/index.js';

/** Budgets of run_code's description, in estimated tokens ({@link estimateTokens}). */
export interface DescriptionBudget {
  /**
   * `discovery: 'auto'` lists full declarations while the whole description stays at or under
   * this, and switches to the one-line index above it. Default 10,000.
   */
  readonly indexAboveTokens: number;
  /**
   * The most the description may ever take, in every mode: above it `full` falls back to the
   * index, and an index above it is cut with a note saying how many tools are not listed (they
   * stay callable and tool_search finds them). Also bounds one tool_search result. Default
   * 25,000; at least {@link MIN_DESCRIPTION_TOKENS}.
   */
  readonly maxTokens: number;
}

/** Defaults of {@link DescriptionBudget}. */
export const DEFAULT_DESCRIPTION_BUDGET: DescriptionBudget = Object.freeze({ indexAboveTokens: 10_000, maxTokens: 25_000 });

/** The smallest `maxTokens` accepted: the fixed text of the description and a few index lines. */
export const MIN_DESCRIPTION_TOKENS = 1_000;

/** The largest value either budget may take. */
const MAX_BUDGET_TOKENS = 10_000_000;

/** The estimated token count of `text` (see the note at the top of this file). */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 4) + other;
}

/** Validates budget options over the defaults; throws an InvalidOptionError naming the option and value. */
export function resolveDescriptionBudget(given: Partial<DescriptionBudget> | undefined, where = 'createRunCodeTool'): DescriptionBudget {
  const budget = { ...DEFAULT_DESCRIPTION_BUDGET, ...(given ?? {}) };
  for (const key of ['indexAboveTokens', 'maxTokens'] as const) {
    const value: unknown = budget[key];
    const min = key === 'maxTokens' ? MIN_DESCRIPTION_TOKENS : 0;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > MAX_BUDGET_TOKENS) {
      throw new InvalidOptionError({ where, option: `descriptionBudget.${key}`, value, expected: `a whole number of tokens from ${min} to ${MAX_BUDGET_TOKENS}` });
    }
  }
  return Object.freeze(budget);
}
