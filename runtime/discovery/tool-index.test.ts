import { describe, expect, it } from 'vitest';
import { estimateTokens } from './description-budget.js';
import { indexLine, MAX_SUMMARY_CHARS, summaryOf, toolIndexListing } from './tool-index.js';

describe('when a description is summarized for the index', () => {
  it('keeps the first sentence', () => {
    expect(summaryOf('Read a file. Fails when the file does not exist.')).toBe('Read a file.');
    expect(summaryOf('Search issues in a GitHub repository.\nResults are sorted by last update.')).toBe('Search issues in a GitHub repository.');
    expect(summaryOf('Is it up? Returns the status.')).toBe('Is it up?');
  });

  it('does not end a sentence at an abbreviation or a file name', () => {
    expect(summaryOf('Reads e.g. config.json files in a folder. Then more.')).toBe('Reads e.g. config.json files in a folder.');
  });

  it('stops at the first paragraph and joins its lines', () => {
    expect(summaryOf('Lists the\nfolders under a root\n\nSecond paragraph.')).toBe('Lists the folders under a root');
  });

  it('bounds a long sentence at a word, with an ellipsis', () => {
    const long = `${'word '.repeat(100)}end.`;
    const s = summaryOf(long);
    expect(s.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
    expect(s.endsWith('word…')).toBe(true);
  });

  it('shows characters that could hide or reorder text as escapes, and drops controls', () => {
    expect(summaryOf('Safe\u202Etxt.exe tool\u200B.\u0007')).toBe('Safe\\u{202E}txt.exe tool\\u{200B}.');
    expect(summaryOf('a\u2028b')).toBe('a\\u{2028}b');
  });

  it('says so when there is no description', () => {
    expect(summaryOf('   ')).toBe('(no description)');
  });
});

describe('when the index is fitted to a budget', () => {
  const entries = Array.from({ length: 50 }, (_, i) => ({ callable: `tool_${String(i).padStart(2, '0')}`, description: `Does thing number ${i}. More detail.` }));
  const note = (n: number) => `- …and ${n} more tools not listed.`;

  it('lists every tool in order when it fits (exact text)', () => {
    const listing = toolIndexListing(entries.slice(0, 3), 1_000, note);
    expect(listing).toEqual({ text: '- tool_00: Does thing number 0.\n- tool_01: Does thing number 1.\n- tool_02: Does thing number 2.', listed: 3, omitted: 0 });
    expect(indexLine(entries[0]!)).toBe('- tool_00: Does thing number 0.');
  });

  it('cuts the list with a note counting the tools left out, and stays within the budget', () => {
    const listing = toolIndexListing(entries, 100, note);
    expect(listing.omitted).toBeGreaterThan(0);
    expect(listing.listed + listing.omitted).toBe(50);
    expect(listing.text.split('\n').at(-1)).toBe(`- …and ${listing.omitted} more tools not listed.`);
    expect(listing.text.split('\n')).toHaveLength(listing.listed + 1);
    expect(estimateTokens(listing.text)).toBeLessThanOrEqual(100);
    // Lines are costed one by one (rounded up, a token per newline): the list still uses most of its budget.
    expect(estimateTokens(listing.text)).toBeGreaterThan(80);
  });
});
