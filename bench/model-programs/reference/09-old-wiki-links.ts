const ids = ['doc-03', 'doc-13', 'doc-08', 'doc-99'];
const titles = await Promise.all(
  ids.map(async (docId) => {
    try {
      return (await tools.docs_read({ docId })).title;
    } catch (e) {
      if (e instanceof ToolCallError) return null;
      throw e;
    }
  }),
);
return Object.fromEntries(ids.map((id, i) => [id, titles[i]]));
