import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../tools/index.js';
import { resultBlocks, resultText, toolResultBlock } from './results.js';

const result = (over: Partial<ToolResult>): ToolResult => ({ callId: 'toolu_1', toolName: 't', isError: false, content: [], additionalContexts: [], ...over });

describe('a result as the Messages API takes it back', () => {
  it('maps text and image blocks, then each additional context as a text block', () => {
    const r = result({ content: [{ type: 'text', text: 'hi' }, { type: 'image', data: 'AAAA', mimeType: 'image/webp' }], additionalContexts: ['note one', 'note two'] });
    expect(resultBlocks(r)).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'image', source: { type: 'base64', media_type: 'image/webp', data: 'AAAA' } },
      { type: 'text', text: 'note one' },
      { type: 'text', text: 'note two' },
    ]);
  });

  it('names an image whose type the API does not take, instead of dropping it', () => {
    expect(resultBlocks(result({ content: [{ type: 'image', data: 'PHN2Zz4=', mimeType: 'image/svg+xml' }] }))).toEqual([
      { type: 'text', text: '[image: image/svg+xml, not sent: the Messages API takes image/jpeg, image/png, image/gif or image/webp]' },
    ]);
  });

  it('leaves out empty text blocks, and sends no content when nothing is left', () => {
    expect(resultBlocks(result({ content: [{ type: 'text', text: '' }, { type: 'text', text: 'x' }] }))).toEqual([{ type: 'text', text: 'x' }]);
    expect(toolResultBlock('toolu_1', result({ content: [{ type: 'text', text: '' }] }), { textOnly: false })).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1' });
    expect(toolResultBlock('toolu_1', result({ content: [{ type: 'text', text: '' }] }), { textOnly: true })).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1' });
  });

  it('gives a provider program one string: text, images named, contexts after a blank line', () => {
    const r = result({ content: [{ type: 'text', text: '{"a": 1}' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }], additionalContexts: ['cached'] });
    expect(resultText(r)).toBe('{"a": 1}\n\n[image: image/png]\n\ncached');
    expect(toolResultBlock('toolu_p', r, { textOnly: true })).toEqual({ type: 'tool_result', tool_use_id: 'toolu_p', content: '{"a": 1}\n\n[image: image/png]\n\ncached' });
  });

  it('marks failures and denials with is_error, and leaves it out otherwise', () => {
    const denied = result({ isError: true, content: [{ type: 'text', text: 'denied: no' }], denied: { by: 'guard', reason: 'no' } });
    expect(toolResultBlock('toolu_d', denied, { textOnly: false })).toEqual({ type: 'tool_result', tool_use_id: 'toolu_d', content: [{ type: 'text', text: 'denied: no' }], is_error: true });
    expect(toolResultBlock('toolu_ok', result({ content: [{ type: 'text', text: 'ok' }] }), { textOnly: false })).not.toHaveProperty('is_error');
  });
});
