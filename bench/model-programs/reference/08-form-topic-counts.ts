const topics = ['checkout', '', 'incident', '  ', 'design'];
return await Promise.all(topics.map(async (t) => (t.trim() === '' ? 0 : (await tools.docs_search({ query: t.trim(), limit: 1 })).total)));
