const { hits } = await tools.docs_search({ query: 'roadmap', limit: 10 });
const titles: string[] = [];
const refused: string[] = [];
for (const h of hits) {
  try {
    titles.push((await tools.docs_read({ docId: h.docId })).title);
  } catch (e) {
    if (!(e instanceof ToolCallError)) throw e;
    refused.push(h.docId);
  }
}
return { titles, refused };
