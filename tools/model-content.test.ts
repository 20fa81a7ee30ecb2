import { describe, expect, it } from 'vitest';
import { modelContent, modelText } from './model-content.js';

describe('what the model reads of a result', () => {
  const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };

  it('is the content, then one text block per additional context, in order', () => {
    const result = { content: [{ type: 'text' as const, text: 'found 2' }, image], additionalContexts: ['note one', 'note two'] };
    expect(modelContent(result)).toEqual([{ type: 'text', text: 'found 2' }, image, { type: 'text', text: 'note one' }, { type: 'text', text: 'note two' }]);
    expect(modelText(result)).toBe('found 2\n\n[image: image/png]\n\nnote one\n\nnote two');
  });

  it('is the content itself when there is no context', () => {
    const content = [{ type: 'text' as const, text: 'x' }];
    expect(modelContent({ content, additionalContexts: [] })).toBe(content);
  });
});
