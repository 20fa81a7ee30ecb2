import { describe, expect, it } from 'vitest';
import { PROGRAM_HEADER_LINES } from './protocol.js';
import { loadGuestParts } from './test-support.js';

/** Name -> [line, column], or null for a tool named more than once. */
type Sites = Record<string, readonly [number, number] | null>;

/** The scanner of sites.js, evaluated with the intrinsics it uses. */
const { staticSites } = loadGuestParts<{ staticSites: (js: string) => Record<string, readonly [number, number] | undefined> }>(['intrinsics.js', 'sites.js'], ['staticSites']);

/** The specification: the regular expression the scanner replaces, with the same bookkeeping. */
const MENTION = /(?:^|[^\w$.])tools\s*(?:\?\.|\.)\s*([A-Za-z_$][\w$]*)|(?:^|[^\w$.])tools\s*(?:\?\.\s*)?\[\s*(?:'([^'\\\n]*)'|"([^"\\\n]*)")/g;
function reference(js: string): Sites {
  const count: Record<string, number> = Object.create(null);
  const where: Sites = Object.create(null);
  let line = 1 + PROGRAM_HEADER_LINES;
  let lineStart = 0;
  for (const m of js.matchAll(MENTION)) {
    const dotted = m[1] !== undefined;
    const name = (dotted ? m[1] : (m[2] ?? m[3]))!;
    const at = dotted ? m.index + m[0].length - name.length : m.index + (m[0][0] === 't' ? 0 : 1);
    for (let nl = js.indexOf('\n', lineStart); nl !== -1 && nl < at; nl = js.indexOf('\n', lineStart)) {
      line++;
      lineStart = nl + 1;
    }
    count[name] = (count[name] ?? 0) + 1;
    where[name] = [line, at - lineStart + 1];
  }
  for (const name in count) if (count[name] !== 1) where[name] = null;
  return { ...where };
}

const sites = (js: string): Sites => {
  const found = staticSites(js);
  const out: Sites = {};
  for (const name in found) out[name] = found[name] === undefined ? null : [found[name]![0], found[name]![1]];
  return out;
};

describe('staticSites (where a program names its tools)', () => {
  it('finds dotted, optional and bracketed mentions at the column V8 reports', () => {
    expect(sites('await tools.read({});\n  await tools?.write(1);\nconst r = tools["list"]();\ntools [ \'del\' ];')).toEqual({
      read: [3, 13],
      write: [4, 16],
      list: [5, 11],
      del: [6, 1],
    });
  });

  it('drops a tool named more than once, and ignores look-alikes', () => {
    expect(sites('tools.a(); // tools.a\nmytools.b(); x.tools.c(); $tools.d(); tools.1; tools.["e"]')).toEqual({ a: null });
  });

  it('agrees with the regular expression it replaces on generated programs', () => {
    const pieces = ['tools', 'tools', '.', '?.', '?', ' ', '\u00a0', '\ufeff', '\u2028', '\n', '\t', '[', ']', "'", '"', '\\', 'x', 'ab', '$', '_', '1', 'é', '(', ')', ';', 'mytools', '.tools', "['k'", 'tools.a', 'tools["b"'];
    let seed = 12345;
    const next = () => {
      // mulberry32: deterministic, so a failure reproduces
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return (t ^ (t >>> 14)) >>> 0;
    };
    for (let i = 0; i < 20_000; i++) {
      let js = '';
      for (let n = next() % 24; n > 0; n--) js += pieces[next() % pieces.length];
      expect(sites(js), JSON.stringify(js)).toEqual(reference(js));
    }
  });
});
