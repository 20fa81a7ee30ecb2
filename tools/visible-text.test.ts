import { describe, expect, it } from 'vitest';
import { visibleText } from './visible-text.js';

describe('when untrusted text is shown on a terminal or in JSDoc', () => {
  it('escapes terminal controls: ESC sequences, OSC 52, carriage return, C1', () => {
    expect(visibleText('a\u001b[2K\rptc mcp serve: forged')).toBe('a\\u001B[2K\\u000Dptc mcp serve: forged');
    expect(visibleText('\u001b]52;c;ZXZpbA==\u0007')).toBe('\\u001B]52;c;ZXZpbA==\\u0007');
    expect(visibleText('x\u009b31m')).toBe('x\\u009B31m');
  });

  it('escapes bidi controls, zero-width characters, tag characters and lone surrogates', () => {
    expect(visibleText('safe\u202Etxt.exe')).toBe('safe\\u202Etxt.exe');
    expect(visibleText('\u2066a\u2069 \u200E\u061C')).toBe('\\u2066a\\u2069 \\u200E\\u061C');
    expect(visibleText('zero\u200Bwidth\uFEFF\u2060')).toBe('zero\\u200Bwidth\\uFEFF\\u2060');
    expect(visibleText('tag\u{E0041}')).toBe('tag\\uDB40\\uDC41');
    expect(JSON.parse(visibleText(JSON.stringify({ k: 'a\u202Eb\u{E0041}\u009B' })))).toEqual({ k: 'a\u202Eb\u{E0041}\u009B' });
    expect(visibleText('lone\uD800!')).toBe('lone\\uD800!');
    expect(visibleText('line\u2028sep')).toBe('line\\u2028sep');
  });

  it('keeps letters of every script, emoji, spaces and tabs; newlines only when asked', () => {
    expect(visibleText('Zürich 東京 😀\tok')).toBe('Zürich 東京 😀\tok');
    expect(visibleText('a\nb')).toBe('a\\u000Ab');
    expect(visibleText('a\nb\r', { newlines: 'keep' })).toBe('a\nb\\u000D');
  });
});
