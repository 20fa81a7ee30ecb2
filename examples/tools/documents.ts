/** Read-only document store tools: `docs_search` (paged) and `docs_read`. Both parallel. */
import { z } from 'zod';
import { defineTool } from '../../tools/index.js';
import { DOCUMENTS, type StoredDocument } from '../data/documents.js';

const classification = z.enum(['public', 'internal', 'confidential']);

function score(doc: StoredDocument, terms: readonly string[]): number {
  const title = doc.title.toLowerCase();
  const text = doc.text.toLowerCase();
  let s = 0;
  for (const t of terms) {
    if (doc.tags.includes(t)) s += 5;
    if (title.includes(t)) s += 3;
    s += Math.min(text.split(t).length - 1, 5);
  }
  return s;
}

/** The action items of a document (lines `ACTION: text (owner u-123)`). */
export function actionItems(doc: StoredDocument): { text: string; ownerId: string | null }[] {
  return doc.text
    .split('\n')
    .filter((l) => l.startsWith('ACTION: '))
    .map((l) => {
      const m = /^ACTION: (.*?)(?: \(owner (u-\d+)\))?$/.exec(l)!;
      return { text: m[1]!, ownerId: m[2] ?? null };
    });
}

/** `docs_search`: ranked hits with handles (`docId`), paged by an opaque cursor. */
export const docsSearch = defineTool({
  name: 'docs_search',
  description: 'Search the document store by keywords (matches tags, titles and text). Returns ranked hits with docId handles; pass nextCursor to get the next page.',
  parameters: {
    query: { type: 'string', required: true, minLength: 1, description: 'Keywords, e.g. "incident checkout"' },
    limit: { type: 'integer', minimum: 1, maximum: 10, default: 3, description: 'Hits per page' },
    cursor: { type: 'string', description: 'nextCursor from the previous page' },
  },
  output: {
    schema: z.object({
      hits: z.array(z.object({ docId: z.string(), title: z.string(), classification, updated: z.string(), score: z.number(), snippet: z.string() })),
      total: z.number().int(),
      nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page'),
    }),
    render: (_a, v) =>
      `${v.total} match(es).\n` +
      v.hits.map((h) => `[${h.docId}] ${h.title} (${h.classification}, updated ${h.updated}, score ${h.score})\n  ${h.snippet}`).join('\n') +
      (v.nextCursor ? `\nMore results: cursor=${v.nextCursor}` : ''),
  },
  isConcurrencySafe: true,
  execute: (args) => {
    const terms = args.query.toLowerCase().split(/\s+/).filter(Boolean);
    const ranked = DOCUMENTS.map((doc) => ({ doc, s: score(doc, terms) }))
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s || (a.doc.updated < b.doc.updated ? 1 : -1));
    if (args.cursor !== undefined && !/^\d{1,6}$/.test(args.cursor)) throw new Error(`invalid cursor ${JSON.stringify(args.cursor)}: pass nextCursor from the previous page`);
    const start = args.cursor === undefined ? 0 : Number(args.cursor);
    const page = ranked.slice(start, start + args.limit);
    return {
      hits: page.map(({ doc, s }) => ({ docId: doc.docId, title: doc.title, classification: doc.classification, updated: doc.updated, score: s, snippet: doc.text.split('\n')[0]!.slice(0, 140) })),
      total: ranked.length,
      nextCursor: start + args.limit < ranked.length ? String(start + args.limit) : null,
    };
  },
});

/** `docs_read`: one whole document with parsed action items. Confidential ones are refused by the example guard. */
export const docsRead = defineTool({
  name: 'docs_read',
  description: 'Read one document by docId: full text plus parsed action items. Confidential documents are refused.',
  parameters: { docId: { type: 'string', required: true, description: 'docId from docs_search' } },
  output: {
    schema: z.object({
      docId: z.string(),
      title: z.string(),
      classification,
      ownerId: z.string(),
      updated: z.string(),
      tags: z.array(z.string()),
      text: z.string(),
      actionItems: z.array(z.object({ text: z.string(), ownerId: z.string().nullable() })),
    }),
    render: (_a, v) => `# ${v.title}\n${v.docId} · ${v.classification} · owner ${v.ownerId} · updated ${v.updated} · tags ${v.tags.join(', ')}\n\n${v.text}`,
  },
  isConcurrencySafe: true,
  execute: (args) => {
    const doc = DOCUMENTS.find((x) => x.docId === args.docId);
    if (!doc) throw new Error(`no document with docId ${args.docId}`);
    return { ...doc, tags: [...doc.tags], actionItems: actionItems(doc) };
  },
});
