import { describe, expect, it } from 'vitest';
import { MAX_JOURNAL_CHARS, SliceJournal } from './slice-journal.js';

describe('SliceJournal', () => {
  it('matches a replayed message only when its kind and every item are the same', () => {
    const journal = new SliceJournal();
    journal.addMessage('calls', [1, 'echo', '{"a":1}']);
    journal.addMessage('log', ['info', 'hello']);
    expect(journal.messageCount).toBe(2);
    expect(journal.matches(0, 'calls', [1, 'echo', '{"a":1}'])).toBe(true);
    expect(journal.matches(0, 'calls', [1, 'echo', '{"a":2}'])).toBe(false);
    expect(journal.matches(0, 'calls', [2, 'echo', '{"a":1}'])).toBe(false);
    expect(journal.matches(0, 'calls', [1, 'echo', '{"a":1}', 3])).toBe(false);
    expect(journal.matches(1, 'log', ['info', 'hello'])).toBe(true);
    expect(journal.matches(1, 'log', ['warn', 'hello'])).toBe(false);
    expect(journal.matches(1, 'calls', ['info', 'hello'])).toBe(false);
    expect(journal.matches(2, 'log', ['info', 'hello'])).toBe(false);
  });

  it('keeps slices in order and says when it holds more than its cap', () => {
    const journal = new SliceJournal();
    journal.addSlice(['start', ['return 1;', '[]', '{}', '']]);
    journal.addSlice(['deliver1', 1, 1, '"x"', '']);
    expect(journal.sliceCount).toBe(2);
    expect(journal.sliceAt(1)).toEqual({ args: ['deliver1', 1, 1, '"x"', ''] });
    expect(journal.full).toBe(false);
    journal.addMessage('log', ['info', 'x'.repeat(MAX_JOURNAL_CHARS)]);
    expect(journal.full).toBe(true);
  });
});
