// Broken on purpose (the judge's test): searches the blank topics too, and the empty query is refused.
const topics = ['checkout', '', 'incident', '  ', 'design'];
return await Promise.all(topics.map(async (t) => (await tools.docs_search({ query: t })).total));
