// Collect everything about the 2027 roadmap. Some matching documents are confidential: the
// document store's guard refuses them, and the program records the refusal and carries on.
const { hits } = await tools.docs_search({ query: 'roadmap', limit: 10 });
const read: { docId: string; title: string; firstLine: string }[] = [];
const refused: { docId: string; reason: string }[] = [];

for (const hit of hits) {
  try {
    const doc = await tools.docs_read({ docId: hit.docId });
    read.push({ docId: doc.docId, title: doc.title, firstLine: doc.text.split('\n')[0] ?? '' });
  } catch (err) {
    // A denial is final: record it, do not retry.
    refused.push({ docId: hit.docId, reason: (err as Error).message });
  }
}
return { read, refused };
