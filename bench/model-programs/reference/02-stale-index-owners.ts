const { hits } = await tools.docs_search({ query: 'stale search index postmortem', limit: 5 });
const hit = hits.find((h) => /stale/i.test(h.title)) ?? hits[0];
if (!hit) return { docId: null, owners: [] };
const doc = await tools.docs_read({ docId: hit.docId });
const ownerIds = [...new Set(doc.actionItems.map((a) => a.ownerId).filter((id): id is string => id !== null))];
const people = await Promise.all(ownerIds.map((id) => tools.team_get({ id })));
return { docId: doc.docId, owners: people.map((p, i) => p?.name ?? ownerIds[i]) };
