// @ts-check
/*
 * The guest, part 6 of 7: `staticSites(js)`, where the program names each tool. For a tool named
 * exactly once, that place is where an uncaught failure of it is reported, so its calls need not
 * capture a stack. Text in comments or strings can only add mentions, which makes a tool fall
 * back to capturing: never a wrong line for a tool named twice.
 *
 * A mention is what this regular expression matches (the specification; sites.test.ts checks the
 * scanner against it on generated programs):
 *   /(?:^|[^\w$.])tools\s*(?:\?\.|\.)\s*([A-Za-z_$][\w$]*)|(?:^|[^\w$.])tools\s*(?:\?\.\s*)?\[\s*(?:'([^'\\\n]*)'|"([^"\\\n]*)")/g
 * It is scanned by hand because V8 compiles a regular expression on its first use in each isolate:
 * 0.3 ms of every new isolate for this one, where `indexOf` and a few character tests cost nothing.
 */
/** Lines the `AsyncFunction` constructor puts before the body (protocol.ts PROGRAM_HEADER_LINES). */
const PROGRAM_HEADER_LINES = 2;
// Positions are in ptc-program.js coordinates, like V8's frames (the property name's column, as
// V8 reports a call of it; for tools['x'], the column of 'tools').
const isWordChar = (/** @param {number} c */ function isWordChar(c) {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
});
// What \s matches.
const isSpace = (/** @param {number} c */ function isSpace(c) {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
});
const skipSpaces = (/** @param {string} js @param {number} p */ function skipSpaces(js, p) {
  while (p < js.length && isSpace(ReflectApply(StringCharCodeAt, js, [p]))) p++;
  return p;
});
// Reads the mention whose 'tools' starts at i into found[0] (name), found[1] (where it is
// reported), found[2] (where the mention ends); false if there is none.
const readMention = (/** @param {string} js @param {number} i @param {any[]} found @returns {boolean} */ function readMention(js, i, found) {
  const n = js.length;
  let p = skipSpaces(js, i + 5);
  let c = p < n ? ReflectApply(StringCharCodeAt, js, [p]) : -1;
  const optional = c === 63 && p + 1 < n && ReflectApply(StringCharCodeAt, js, [p + 1]) === 46; // ?.
  if (optional || c === 46) {
    p = skipSpaces(js, p + (optional ? 2 : 1));
    c = p < n ? ReflectApply(StringCharCodeAt, js, [p]) : -1;
    if (isWordChar(c) && !(c >= 48 && c <= 57)) {
      let end = p + 1;
      while (end < n && isWordChar(ReflectApply(StringCharCodeAt, js, [end]))) end++;
      found[0] = ReflectApply(StringSlice, js, [p, end]); found[1] = p; found[2] = end;
      return true;
    }
    if (!optional) return false;
  }
  if (c !== 91) return false; // [
  p = skipSpaces(js, p + 1);
  const quote = p < n ? ReflectApply(StringCharCodeAt, js, [p]) : -1;
  if (quote !== 39 && quote !== 34) return false;
  for (let end = p + 1; end < n; end++) {
    const d = ReflectApply(StringCharCodeAt, js, [end]);
    if (d === quote) {
      found[0] = ReflectApply(StringSlice, js, [p + 1, end]); found[1] = i; found[2] = end + 1;
      return true;
    }
    if (d === 92 || d === 10) return false; // a backslash or a line feed
  }
  return false;
});
const staticSites = (/** @param {string} js @returns {Record<string, StaticSite | undefined>} */ function staticSites(js) {
  /** @type {Record<string, number>} */
  const count = ObjectCreate(null);
  /** @type {Record<string, StaticSite | undefined>} */
  const where = ObjectCreate(null);
  const found = list();
  let line = 1 + PROGRAM_HEADER_LINES;
  let lineStart = 0;
  let from = 0;
  // Where the last mention ended: the character before the next must come after it.
  let lastEnd = 0;
  for (;;) {
    const i = ReflectApply(StringIndexOf, js, ['tools', from]);
    if (i === -1) break;
    from = i + 1;
    if (i > 0) {
      if (i - 1 < lastEnd) continue;
      const b = ReflectApply(StringCharCodeAt, js, [i - 1]);
      if (isWordChar(b) || b === 46) continue;
    }
    if (!readMention(js, i, found)) continue;
    const name = /** @type {string} */ (found[0]);
    const at = /** @type {number} */ (found[1]);
    from = lastEnd = found[2];
    for (;;) {
      const nl = ReflectApply(StringIndexOf, js, ['\n', lineStart]);
      if (nl === -1 || nl >= at) break;
      line++;
      lineStart = nl + 1;
    }
    count[name] = (count[name] === undefined ? 0 : count[name]) + 1;
    const site = list();
    site[0] = line; site[1] = at - lineStart + 1;
    where[name] = /** @type {StaticSite} */ (ObjectFreeze(site));
  }
  for (const name in count) if (count[name] !== 1) where[name] = undefined;
  return where;
});
