/**
 * Terms of tool_search: how a tool's text and a model's query become comparable words.
 *
 * - Words: letter/digit runs, split at camelCase humps, so `customers_search`,
 *   `hubspot.searchContacts` and `netsuite.list-sales-orders` give their words.
 * - Light stemming: the first and last steps of Porter's algorithm (plurals, `-ed`, `-ing`, a
 *   final `y` and `e`), so `orders`/`ordered`, `archive`/`archived`/`archiving`,
 *   `inventory`/`inventories`, `ship`/`shipped`/`shipping` meet, and nothing more aggressive
 *   (no `-ment`, `-ation` folding) that would merge words with different meanings.
 * - Function words and query fillers (`the`, `of`, `my`, `how`, `many`) are dropped.
 * - A small table of synonyms (verbs of the usual operations, nouns of business data) that a
 *   model and a tool author use for the same thing: `find`/`search`, `add`/`create`,
 *   `stock`/`inventory`, `client`/`customer`, `bill`/`invoice`. Generic on purpose: it is not
 *   tuned to any catalog, and a host that needs more plugs in its own ranking
 *   (`createToolSearchTool({ rank })`).
 */

/** Most characters of one text that are split into words. */
export const MAX_TERM_TEXT_CHARS = 8_000;

const WORD = /[\p{L}\p{N}]+/gu;
const ASCII_WORD = /[A-Za-z0-9]+/g;
const HUMP = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;
const HAS_UPPER = /\p{Lu}/u;
const ASCII = /^[\x00-\x7f]*$/;

/** Words of a text: letter/digit runs, split at camelCase humps (case kept; {@link processTerm} lowercases). */
export function tokenize(text: string): string[] {
  const bounded = text.slice(0, MAX_TERM_TEXT_CHARS);
  // Unicode property escapes are slow in V8: ASCII text (most of it) takes the plain classes.
  const words = (ASCII.test(bounded) ? bounded.match(ASCII_WORD) : bounded.match(WORD)) ?? [];
  const out: string[] = [];
  for (const word of words) {
    if (HAS_UPPER.test(word) && word !== word.toUpperCase()) {
      for (const part of word.split(HUMP)) out.push(part);
    } else out.push(word);
  }
  return out;
}

const STOP_WORDS = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'in', 'into', 'is', 'it', 'its', 'of', 'on', 'or', 'that', 'the',
  'this', 'these', 'those', 'to', 'with', 'use', 'using', 'tool', 'tools', 'i', 'me', 'my', 'we', 'us', 'our', 'you', 'your', 'their',
  'them', 'they', 'he', 'she', 'his', 'her', 'how', 'many', 'much', 'what', 'which', 'who', 'whom', 'when', 'where', 'why', 'do', 'does',
  'did', 'can', 'could', 'should', 'would', 'will', 'want', 'need', 'please', 'some', 'any', 'there', 'about', 'so', 'than', 'then',
  'up', 'out', 'if', 'was', 'were', 'been', 'has', 'have', 'had', 'not', 'no', 'yet', 'just', 'also', 'via', 'per', 'each', 'every',
]);

const VOWEL = /[aeiou]/;

function isConsonant(word: string, i: number): boolean {
  const c = word[i]!;
  if (VOWEL.test(c)) return false;
  if (c === 'y') return i === 0 || !isConsonant(word, i - 1);
  return true;
}

/** Porter's measure: the number of vowel-consonant sequences of `stem`. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** Ends consonant-vowel-consonant, the last not w, x or y (`hop`, not `hoop` or `snow`). */
function endsCvc(stem: string): boolean {
  const n = stem.length;
  if (n < 3) return false;
  const last = stem[n - 1]!;
  return isConsonant(stem, n - 3) && !isConsonant(stem, n - 2) && isConsonant(stem, n - 1) && last !== 'w' && last !== 'x' && last !== 'y';
}

function endsDoubleConsonant(stem: string): boolean {
  const n = stem.length;
  return n >= 2 && stem[n - 1] === stem[n - 2] && isConsonant(stem, n - 1);
}

/** Words `-ing` never comes off. */
const KEEP_ING = new Set(['string', 'thing', 'spring', 'during', 'morning', 'evening', 'nothing', 'something', 'everything', 'anything', 'ceiling', 'bring', 'king', 'ring', 'sing', 'wing']);

/**
 * A word's stem: Porter's steps 1a-1c and 5 (plurals, `-ed`/`-ing`, a final `y`, a final `e`, a
 * final double `l`), on a lowercased word. Words of three letters or fewer are kept whole.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  // 1a: plurals.
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  // 1b: -eed, -ed, -ing.
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else {
    const suffix = w.endsWith('ed') ? 2 : w.endsWith('ing') && !KEEP_ING.has(w) ? 3 : 0;
    if (suffix > 0 && hasVowel(w.slice(0, -suffix))) {
      w = w.slice(0, -suffix);
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
      else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
      else if (measure(w) === 1 && endsCvc(w)) w += 'e';
    }
  }
  // 1c: a final y after a vowel-bearing stem.
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  // 5: a final e, a final double l.
  if (w.endsWith('e')) {
    const base = w.slice(0, -1);
    const m = measure(base);
    if (m > 1 || (m === 1 && !endsCvc(base))) w = base;
  }
  if (w.endsWith('ll') && measure(w) > 1) w = w.slice(0, -1);
  return w;
}

/** A term as indexed and queried: lowercased and stemmed; null for a function word. */
export function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  if (STOP_WORDS.has(t)) return null;
  return stem(t);
}

/** The terms of a text, in order (repeats kept); single letters are dropped (`customer's` gives `customer`). */
export function termsOf(text: string): string[] {
  const out: string[] = [];
  for (const word of tokenize(text)) {
    if (word.length < 2) continue;
    const term = processTerm(word);
    if (term !== null && term !== '') out.push(term);
  }
  return out;
}

/** Whether a word reads as an English plural (`orders`, `companies`; not `status`, `address`, `sms`). */
function isPlural(word: string): boolean {
  const w = word.toLowerCase();
  return w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is');
}

/**
 * The terms of a text with their grammatical number: each term, and whether its word was plural.
 * Used on tool names and queries: `list_orders` answers "orders waiting to be shipped" and
 * `get_order` "the order with id 5" (lists and searches are named in the plural).
 */
export function numberedTermsOf(text: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const word of tokenize(text)) {
    if (word.length < 2) continue;
    const term = processTerm(word);
    if (term !== null && term !== '' && !out.has(term)) out.set(term, isPlural(word));
  }
  return out;
}

/**
 * Words that name the same thing in tool names and in requests. Each group is symmetric; a word
 * may be in several (`show` lists and gets). Kept small and generic: verbs of the usual
 * operations, and nouns of business data.
 */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  // Operations.
  ['list', 'show', 'browse', 'enumerate', 'all'],
  ['search', 'find', 'lookup', 'look', 'query', 'locate', 'filter'],
  ['get', 'fetch', 'retrieve', 'read', 'show', 'view', 'detail', 'details', 'lookup', 'check'],
  ['create', 'add', 'new', 'make', 'insert', 'register'],
  ['update', 'edit', 'change', 'modify', 'set', 'patch', 'rename', 'adjust', 'fix'],
  ['delete', 'remove', 'drop', 'destroy', 'erase', 'purge'],
  ['cancel', 'void', 'revoke', 'abort'],
  ['send', 'post', 'deliver', 'dispatch', 'publish'],
  ['reply', 'respond', 'response', 'answer'],
  ['refund', 'reimburse', 'reimbursement', 'chargeback'],
  ['count', 'recount', 'tally'],
  ['share', 'grant', 'permission', 'access'],
  ['assign', 'reassign', 'delegate'],
  // Things.
  ['stock', 'inventory'],
  ['level', 'quantity', 'count', 'amount'],
  ['customer', 'client', 'buyer', 'shopper', 'purchaser', 'payer'],
  ['person', 'people', 'contact', 'user', 'individual'],
  ['company', 'organization', 'organisation', 'business', 'firm'],
  ['order', 'purchase'],
  ['product', 'item', 'sku', 'article', 'good', 'goods', 'merchandise'],
  ['ticket', 'case', 'request'],
  ['issue', 'bug', 'defect'],
  ['invoice', 'bill'],
  ['payment', 'charge', 'transaction'],
  ['shipment', 'delivery', 'parcel', 'package'],
  ['message', 'chat', 'conversation', 'text', 'sms'],
  ['campaign', 'newsletter', 'mailing'],
  ['subscriber', 'member', 'recipient'],
  ['event', 'meeting', 'appointment'],
  ['file', 'document', 'doc'],
  ['employee', 'staff', 'worker', 'personnel', 'colleague'],
  ['vacation', 'leave', 'holiday', 'absence'],
  ['price', 'cost', 'pricing'],
  ['discount', 'coupon', 'promo', 'voucher'],
  ['deal', 'opportunity'],
  ['lead', 'prospect'],
  ['vendor', 'supplier'],
  ['incident', 'alert', 'outage'],
  ['note', 'comment', 'remark'],
  ['report', 'stats', 'statistics', 'analytics', 'metrics'],
  ['rating', 'score', 'feedback'],
  ['location', 'site'],
  ['repository', 'repo'],
];

/** Stem -> the other stems of its groups. */
const SYNONYMS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    const stems = [...new Set(group.map((w) => stem(w)))];
    for (const s of stems) {
      if (!map.has(s)) map.set(s, new Set());
      for (const other of stems) if (other !== s) map.get(s)!.add(other);
    }
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
})();

/**
 * Words that are an operation when they lead a request and a thing elsewhere: "file a bug",
 * "text a customer", "book a meeting", "log a note", but "find the file", "message text".
 * They get these meanings only as a query's first word (an imperative starts with its verb).
 */
const LEADING_VERB_GROUPS: Readonly<Record<string, readonly string[]>> = {
  file: ['create'],
  raise: ['create'],
  enter: ['create'],
  record: ['create'],
  log: ['create'],
  book: ['create'],
  schedule: ['create'],
  text: ['send'],
  email: ['send'],
  message: ['send'],
  page: ['send', 'notify'],
  close: ['delete', 'cancel'],
};

const LEADING_VERBS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(LEADING_VERB_GROUPS).map(([word, verbs]) => [stem(word), [...new Set(verbs.flatMap((v) => [stem(v), ...(SYNONYMS.get(stem(v)) ?? [])]))]]),
);

/** The operations a query's first word stands for, as stems (none for most words). */
export function leadingVerbsOf(term: string): readonly string[] {
  return LEADING_VERBS.get(term) ?? [];
}

/** The synonyms of a processed term (stems), or none. */
export function synonymsOf(term: string): readonly string[] {
  return SYNONYMS.get(term) ?? [];
}
