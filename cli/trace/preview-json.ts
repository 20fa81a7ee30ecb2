/**
 * A bounded JSON preview for values read from a trace: a hostile trace can hold values nested
 * deeper than `JSON.stringify` can recurse, or megabytes of text. Stops at `maxChars` and
 * replaces anything deeper than `maxDepth` with `…`. Never throws.
 */
export function previewJson(value: unknown, maxChars = 300, maxDepth = 12): string {
  let out = '';
  const full = () => out.length >= maxChars;
  const put = (s: string) => {
    out += s;
  };
  const walk = (v: unknown, depth: number): void => {
    if (full()) return;
    if (v === null || typeof v === 'number' || typeof v === 'boolean') return put(String(v));
    if (typeof v === 'string') return put(JSON.stringify(v.length > maxChars ? v.slice(0, maxChars) : v));
    if (typeof v !== 'object') return put('null');
    if (depth >= maxDepth) return put(Array.isArray(v) ? '[…]' : '{…}');
    if (Array.isArray(v)) {
      put('[');
      for (let i = 0; i < v.length && !full(); i++) {
        if (i) put(',');
        walk(v[i], depth + 1);
      }
      return put(']');
    }
    put('{');
    let first = true;
    for (const key of Object.keys(v)) {
      if (full()) break;
      if (!first) put(',');
      first = false;
      put(JSON.stringify(key.length > 100 ? key.slice(0, 100) : key) + ':');
      walk((v as Record<string, unknown>)[key], depth + 1);
    }
    put('}');
  };
  walk(value, 0);
  return out.length > maxChars ? `${out.slice(0, maxChars - 1)}…` : out;
}
