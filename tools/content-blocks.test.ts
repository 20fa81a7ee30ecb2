import { describe, expect, it } from 'vitest';
import { contentBlockText } from './model-content.js';
import { checkContent, MAX_CONTENT_URI_CHARS } from './render.js';

const who = 'tool "t": output.render';

describe('content blocks of every MCP type', () => {
  const blocks = [
    { type: 'text', text: 'hi' },
    { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
    { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'alpha' } },
    { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAECAw==' } },
    { type: 'resource_link', uri: 'file:///b.md', name: 'b.md', title: 'B', description: 'the b file', mimeType: 'text/markdown', size: 12 },
  ];

  it('are accepted as given, frozen, with unknown fields dropped', () => {
    const checked = checkContent(blocks.map((b) => ({ ...b, annotations: { audience: ['user'] } })), who);
    expect(checked).toEqual(blocks);
    expect(Object.isFrozen(checked[3])).toBe(true);
    expect(Object.isFrozen((checked[3] as { resource: object }).resource)).toBe(true);
  });

  it('read as text stand-ins that say what they were', () => {
    expect(checkContent(blocks, who).map(contentBlockText)).toEqual([
      'hi',
      '[image: image/png]',
      '[audio: audio/wav]',
      '[resource: file:///a.txt (text/plain)]\nalpha',
      '[resource: file:///a.bin, binary, 6 bytes]',
      '[resource_link: B <file:///b.md> (text/markdown) the b file]',
    ]);
  });

  it.each([
    [[{ type: 'video', data: 'AA==' }], /content\[0\]\.type is "video", not one of text, image, audio, resource, resource_link/],
    [[{ type: 'audio', data: 'not base64!', mimeType: 'audio/wav' }], /content\[0\]\.data is not base64/],
    [[{ type: 'audio', data: 'AA==', mimeType: 'wav' }], /content\[0\]\.mimeType is not a MIME type/],
    [[{ type: 'image', data: 42, mimeType: 'image/png' }], /content\[0\]\.data must be a base64 string \(got number\)/],
    [[{ type: 'text', text: 'ok' }, { type: 'resource', resource: { uri: 'x:y', text: 'a', blob: 'AA==' } }], /content\[1\]\.resource must have exactly one of text and blob/],
    [[{ type: 'resource', resource: { uri: 'x:y' } }], /content\[0\]\.resource must have exactly one of text and blob/],
    [[{ type: 'resource', resource: null }], /content\[0\]\.resource must be an object/],
    [[{ type: 'resource_link', uri: 'x:'.padEnd(MAX_CONTENT_URI_CHARS + 1, 'a'), name: 'n' }], new RegExp(`content\\[0\\]\\.uri is ${MAX_CONTENT_URI_CHARS + 1} characters; the most is ${MAX_CONTENT_URI_CHARS}`)],
    [[{ type: 'resource_link', uri: 'x:y' }], /content\[0\]\.name must be a string \(got undefined\)/],
    [[{ type: 'resource_link', uri: 'x:y', name: 'n', size: -1 }], /content\[0\]\.size must be a non-negative integer/],
    [[null], /content\[0\] is not a content block object/],
  ])('refuses a hostile block, naming the block, the field and the limit (%#)', (content, message) => {
    expect(() => checkContent(content, who)).toThrow(message);
    expect(() => checkContent(content, who)).toThrow(/^tool "t": output\.render: /);
  });
});
