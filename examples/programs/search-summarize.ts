// Summarize every incident postmortem: page through the search results, read each document,
// and return the open action items grouped by owner.
const summaries: { docId: string; title: string; actions: number }[] = [];
const byOwner: Record<string, string[]> = {};
const skipped: string[] = [];

let cursor: string | undefined;
do {
  const page = await tools.docs_search({ query: 'incident postmortem', limit: 4, ...(cursor ? { cursor } : {}) });
  const readable = page.hits.filter((h) => h.classification !== 'confidential');
  skipped.push(...page.hits.filter((h) => h.classification === 'confidential').map((h) => h.docId));
  const docs = await Promise.all(readable.map((h) => tools.docs_read({ docId: h.docId })));
  for (const doc of docs) {
    summaries.push({ docId: doc.docId, title: doc.title, actions: doc.actionItems.length });
    for (const item of doc.actionItems) (byOwner[item.ownerId ?? 'unassigned'] ??= []).push(`${item.text} [${doc.docId}]`);
  }
  cursor = page.nextCursor ?? undefined;
} while (cursor);

return { incidents: summaries.length, summaries, actionItemsByOwner: byOwner, skippedConfidential: skipped };
