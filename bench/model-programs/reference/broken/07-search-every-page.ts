// Broken on purpose (the judge's test): only the first page.
const page = await tools.docs_search({ query: 'incident policy roadmap' });
return page.hits.map((h) => h.docId);
