const ids: string[] = [];
let cursor: string | undefined;
do {
  const page = await tools.docs_search({ query: 'incident postmortem', limit: 10, ...(cursor ? { cursor } : {}) });
  ids.push(...page.hits.map((h) => h.docId));
  cursor = page.nextCursor ?? undefined;
} while (cursor);
const docs = await Promise.all(
  ids.map(async (docId) => {
    try {
      return await tools.docs_read({ docId });
    } catch (e) {
      if (e instanceof ToolCallError) return null;
      throw e;
    }
  }),
);
const postmortems = docs.filter((d) => d !== null && d.tags.includes('postmortem'));
const { members } = await tools.team_list();
const teamOf = new Map(members.map((m) => [m.id, m.team]));
const counts: Record<string, number> = {};
for (const d of postmortems) for (const a of d!.actionItems) {
  const team = a.ownerId ? teamOf.get(a.ownerId) : undefined;
  if (team) counts[team] = (counts[team] ?? 0) + 1;
}
return counts;
