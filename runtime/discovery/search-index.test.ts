import { describe, expect, it } from 'vitest';
import { CATALOG_CAPACITY, syntheticCatalog } from '../../examples/tool-catalog.js';
import { defineTool } from '../../tools/index.js';
import { processTerm, tokenize, ToolSearchIndex } from './search-index.js';
import { synonymsOf } from './search-terms.js';

const catalog = syntheticCatalog(CATALOG_CAPACITY);
const index = new ToolSearchIndex(catalog);
const top = (query: string, n = 3) => index.search(query, n).map((h) => h.tool.name);

describe('when terms are made from names and text', () => {
  it('splits snake, kebab, dotted and camelCase names into words', () => {
    expect(tokenize('github.list_pull_requests')).toEqual(['github', 'list', 'pull', 'requests']);
    expect(tokenize('notion.queryDatabase k8s.list-pods getHTTPResponse')).toEqual(['notion', 'query', 'Database', 'k8s', 'list', 'pods', 'get', 'HTTP', 'Response']);
  });

  it('lowercases, drops function words and stems words alike for documents and queries', () => {
    expect(['Files', 'listing', 'queries', 'archived', 'the', 'status', 'my'].map(processTerm)).toEqual(['file', 'list', 'queri', 'archiv', null, 'status', null]);
    const same = (...words: string[]) => expect(new Set(words.map(processTerm)).size, words.join(', ')).toBe(1);
    same('order', 'orders', 'ordered');
    same('archive', 'archived', 'archiving', 'archives');
    same('inventory', 'inventories');
    same('ship', 'shipped', 'shipping', 'ships');
    same('create', 'created', 'creating', 'creates');
    same('cancel', 'canceled', 'cancelled', 'cancelling');
    same('price', 'prices', 'pricing');
    // No folding that merges different words.
    expect(processTerm('shipment')).not.toBe(processTerm('ship'));
    expect(processTerm('string')).toBe('string');
    expect(processTerm('sms')).toBe('sms');
  });

  it('knows the usual synonyms of operations and business data, both ways', () => {
    const syn = (a: string, b: string) => synonymsOf(processTerm(a)!).includes(processTerm(b)!);
    for (const [a, b] of [['find', 'search'], ['add', 'create'], ['remove', 'delete'], ['stock', 'inventory'], ['client', 'customer'], ['bill', 'invoice'], ['supplier', 'vendor'], ['doc', 'file']]) {
      expect(syn(a, b), `${a} ~ ${b}`).toBe(true);
      expect(syn(b, a), `${b} ~ ${a}`).toBe(true);
    }
    expect(syn('stock', 'customer')).toBe(false);
  });
});

describe(`when the model searches a realistic catalog of ${CATALOG_CAPACITY} tools`, () => {
  it('finds the tool for a task phrased in its own words', () => {
    expect(top('open pull requests', 1)).toEqual(['github.list_pull_requests']);
    expect(top('refund a payment', 1)).toEqual(['stripe.create_refund']);
    expect(top('send an sms', 3)).toContain('twilio.create_sms_message');
    expect(top('merge requests', 5).every((n) => n.startsWith('gitlab.') && /merge.?request/.test(n))).toBe(true);
  });

  it('ranks the named service first when the query names it', () => {
    const hits = top('jira issues', 5);
    expect(hits[0]).toMatch(/^jira\./);
    expect(hits.filter((n) => n.startsWith('jira.')).length).toBeGreaterThanOrEqual(3);
  });

  it('puts an exact tool or callable name first', () => {
    expect(top('calendar.listEvents', 1)).toEqual(['calendar.listEvents']);
    expect(top('k8s_list_pods', 1)).toEqual(['k8s.list-pods']);
    expect(top('  ZENDESK.LIST_TICKETS ', 1)).toEqual(['zendesk.list_tickets']);
  });

  it('matches parameter names', () => {
    // `expectedVersion` is a parameter of every update tool and appears in no name.
    const hits = index.search('expectedVersion', 50).map((h) => h.tool.name);
    expect(hits.length).toBeGreaterThan(10);
    expect(hits.every((n) => /update/i.test(n))).toBe(true);
  });

  it('tolerates a typo and a prefix', () => {
    expect(top('subscriptons stripe', 3).every((n) => n.startsWith('stripe.') && n.includes('subscription'))).toBe(true);
    expect(top('deploym', 3).some((n) => n.includes('deployment'))).toBe(true);
  });

  it('gives nothing for words no tool has, and respects the limit', () => {
    expect(index.search('zzqx quux', 5)).toEqual([]);
    expect(index.search('list', 7)).toHaveLength(7);
  });
});

describe('when a tool carries hostile text', () => {
  it('indexes a bounded amount of it and still finds the tool', () => {
    const hostile = defineTool({
      name: 'evil',
      description: `${'spam '.repeat(100_000)} unique-needle`,
      parameters: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`p${i}`, { type: 'string' as const, description: 'x'.repeat(10_000) }])),
      execute: () => null,
    });
    const t0 = performance.now();
    const small = new ToolSearchIndex([hostile, ...catalog.slice(0, 10)]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(0); // built, not hung
    expect(small.search('evil', 1).map((h) => h.tool.name)).toEqual(['evil']);
    // The needle is past the indexed part of the description.
    expect(small.search('needle', 1)).toEqual([]);
  });
});
