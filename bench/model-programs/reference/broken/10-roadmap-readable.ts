// Broken on purpose (the judge's test): reads every hit without handling the denial.
const { hits } = await tools.docs_search({ query: 'roadmap', limit: 10 });
const docs = await Promise.all(hits.map((h) => tools.docs_read({ docId: h.docId })));
return { titles: docs.map((d) => d.title), refused: [] };
