/** The bundled read-only document store: postmortems, plans and policies, some confidential. */

/** One stored document. */
export interface StoredDocument {
  readonly docId: string;
  readonly title: string;
  readonly classification: 'public' | 'internal' | 'confidential';
  readonly ownerId: string;
  readonly updated: string;
  readonly tags: readonly string[];
  readonly text: string;
}

const d = (docId: string, title: string, classification: StoredDocument['classification'], ownerId: string, updated: string, tags: string[], text: string): StoredDocument =>
  Object.freeze({ docId, title, classification, ownerId, updated, tags: Object.freeze(tags), text: text.trim() });

/** Every document, oldest first. */
export const DOCUMENTS: readonly StoredDocument[] = Object.freeze([
  d('doc-01', 'Incident 2026-09-14: checkout latency spike', 'internal', 'u-101', '2026-09-16', ['incident', 'postmortem', 'checkout'], `
Summary: between 14:02 and 14:41 UTC checkout p99 latency rose from 420 ms to 9.8 s. Root cause was a connection pool
exhausted by a retry storm after the payments provider returned 503s. No orders were lost; 3.1% were delayed.
Timeline: 14:02 alerts fired; 14:09 on-call paged the payments team; 14:25 retries were capped; 14:41 latency recovered.
What went well: alerting fired within a minute. What went badly: retries had no jitter and no budget.
ACTION: add jittered exponential backoff to the payments client (owner u-102)
ACTION: cap total retries per request at 2 (owner u-103)
ACTION: add a dashboard panel for pool saturation (owner u-104)
`),
  d('doc-02', 'Incident 2026-10-02: stale search index', 'internal', 'u-103', '2026-10-04', ['incident', 'postmortem', 'search'], `
Summary: product search served results up to 6 hours stale after the indexer silently stopped on a schema change.
Detection was by a customer report, not by monitoring. Impact: 212 support tickets about missing products.
Root cause: the indexer swallowed a deserialization error and kept its heartbeat green.
ACTION: make the indexer fail loudly on schema mismatches (owner u-103)
ACTION: alert on index age above 15 minutes (owner u-105)
`),
  d('doc-03', 'Incident 2026-10-21: expired TLS certificate on status page', 'public', 'u-104', '2026-10-22', ['incident', 'postmortem', 'tls'], `
Summary: the public status page served an expired certificate for 47 minutes. The main product was unaffected.
Root cause: the status page was outside automated renewal because it was hosted by a vendor.
ACTION: move the status page certificate under automated renewal (owner u-104)
`),
  d('doc-04', 'Incident 2026-11-08: design system CDN outage', 'internal', 'u-203', '2026-11-10', ['incident', 'postmortem', 'design-system'], `
Summary: the design system's CDN origin was deleted during a bucket cleanup, breaking fonts and icons in three apps for
2 hours. Root cause: a lifecycle rule matched the origin bucket by prefix.
ACTION: protect the origin bucket with a deletion lock (owner u-203)
ACTION: self-host fonts in each app as a fallback (owner u-201)
`),
  d('doc-05', 'Incident 2026-11-19: payroll export mismatch', 'confidential', 'u-100', '2026-11-20', ['incident', 'postmortem', 'payroll'], `
Summary: the November payroll export included two contractors twice. Figures and names are in the appendix.
ACTION: reconcile the export against HR records before sending (owner u-100)
`),
  d('doc-06', 'Platform roadmap H1 2027', 'internal', 'u-100', '2026-11-02', ['roadmap', 'platform'], `
Themes: reliability first (retry budgets, load shedding), then a self-service deploy pipeline, then cost.
Milestones: January retry budgets everywhere; March self-service deploys; May cost dashboards per team.
`),
  d('doc-07', 'Reorganisation plan 2027', 'confidential', 'u-100', '2026-11-25', ['roadmap', 'org'], `
Draft: merge the design and platform front-end groups under one lead. Headcount changes listed per person.
`),
  d('doc-08', 'Travel and expense policy', 'public', 'u-300', '2026-08-01', ['policy', 'expenses'], `
Economy class for flights under 6 hours. Hotels up to EUR 180 per night in most cities, EUR 250 in London, Tokyo and
New York. Client entertainment needs a named client and a manager's approval above EUR 300.
Monthly budgets: engineers and designers EUR 600, leads EUR 900, managers EUR 1500, account executives EUR 2200.
`),
  d('doc-09', 'On-call handbook', 'internal', 'u-101', '2026-09-30', ['policy', 'on-call'], `
Pages are acknowledged within 5 minutes. Escalate to the team lead after 20 minutes without a mitigation.
Every incident with customer impact gets a postmortem within 3 working days, tagged "incident".
`),
  d('doc-10', 'Sales pipeline Q4 2026', 'confidential', 'u-300', '2026-11-28', ['sales', 'forecast'], `
Forecast and named accounts by stage. Not for distribution outside sales leadership.
`),
  d('doc-11', 'Design review checklist', 'public', 'u-200', '2026-10-12', ['design-system', 'policy'], `
Every new component ships with keyboard support, a dark-mode variant and documented tokens. Reviews happen on Tuesdays.
`),
  d('doc-12', 'Incident 2026-11-27: duplicate invoice emails', 'internal', 'u-302', '2026-11-28', ['incident', 'postmortem', 'billing'], `
Summary: 1,840 customers received their November invoice email twice after a queue consumer was restarted mid-batch.
Root cause: the email sender was not idempotent per invoice id.
ACTION: make invoice emails idempotent by invoice id (owner u-102)
ACTION: send an apology note to affected customers (owner u-302)
`),
]);
