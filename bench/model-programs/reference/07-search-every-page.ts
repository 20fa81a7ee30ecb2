const ids: string[] = [];
let cursor: string | undefined;
do {
  const page = await tools.docs_search({ query: 'incident policy roadmap', limit: 10, ...(cursor ? { cursor } : {}) });
  ids.push(...page.hits.map((h) => h.docId));
  cursor = page.nextCursor ?? undefined;
} while (cursor);
return ids;
