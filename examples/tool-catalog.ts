/**
 * A realistic synthetic tool catalog, for measuring and testing discovery at sizes no two
 * reference servers reach (200, 500 tools): the services a real agent setup connects (a code
 * host, a tracker, chat, a database, billing, calendars, files, monitoring, a cluster, ...),
 * each with its own naming style (`github.list_pull_requests`, `jira.search-issues`,
 * `notion.queryDatabase`), descriptions of a few sentences, nested parameters (filters,
 * patches, enums, bounds, defaults) and output schemas. Deterministic: the same `count` always
 * gives the same tools, and a prefix of a larger catalog is the smaller one.
 *
 * The tools run nothing real: `execute` returns an empty but schema-valid value.
 */
import { defineTool, type Tool } from '../tools/index.js';
import type { ParamSpec, ParamsShorthand } from '../tools/shorthand-schema.js';

type Style = 'snake' | 'kebab' | 'camel';
interface Entity {
  readonly one: string;
  readonly many: string;
  readonly container: string;
  readonly states: readonly string[];
  readonly fields: readonly string[];
}
interface Service {
  readonly name: string;
  readonly product: string;
  readonly style: Style;
  readonly entities: readonly Entity[];
}

const e = (one: string, many: string, container: string, states: string[], fields: string[]): Entity => ({ one, many, container, states, fields });

const SERVICES: readonly Service[] = [
  { name: 'github', product: 'GitHub', style: 'snake', entities: [e('pull request', 'pull requests', 'repository', ['open', 'closed', 'merged'], ['title', 'body', 'base', 'head']), e('issue', 'issues', 'repository', ['open', 'closed'], ['title', 'body', 'labels', 'milestone']), e('release', 'releases', 'repository', ['draft', 'published'], ['tag', 'name', 'notes']), e('workflow run', 'workflow runs', 'repository', ['queued', 'in_progress', 'completed'], ['workflow', 'branch', 'conclusion'])] },
  { name: 'jira', product: 'Jira', style: 'kebab', entities: [e('issue', 'issues', 'project', ['to_do', 'in_progress', 'done'], ['summary', 'description', 'priority', 'assignee']), e('sprint', 'sprints', 'board', ['future', 'active', 'closed'], ['name', 'goal', 'start', 'end']), e('epic', 'epics', 'project', ['open', 'done'], ['name', 'summary', 'color'])] },
  { name: 'slack', product: 'Slack', style: 'snake', entities: [e('message', 'messages', 'channel', ['sent', 'edited', 'deleted'], ['text', 'thread', 'attachments']), e('channel', 'channels', 'workspace', ['active', 'archived'], ['name', 'topic', 'purpose']), e('reminder', 'reminders', 'workspace', ['pending', 'complete'], ['text', 'time', 'recurrence'])] },
  { name: 'postgres', product: 'PostgreSQL', style: 'snake', entities: [e('table', 'tables', 'schema', ['ordinary', 'partitioned', 'view'], ['name', 'columns', 'owner']), e('index', 'indexes', 'table', ['valid', 'invalid'], ['name', 'columns', 'method']), e('saved query', 'saved queries', 'database', ['active', 'disabled'], ['sql', 'name', 'parameters'])] },
  { name: 'stripe', product: 'Stripe', style: 'snake', entities: [e('customer', 'customers', 'account', ['active', 'deleted'], ['email', 'name', 'address']), e('invoice', 'invoices', 'account', ['draft', 'open', 'paid', 'void'], ['customer', 'lines', 'due_date']), e('refund', 'refunds', 'account', ['pending', 'succeeded', 'failed'], ['payment', 'amount', 'reason']), e('subscription', 'subscriptions', 'account', ['trialing', 'active', 'canceled'], ['customer', 'plan', 'quantity'])] },
  { name: 'calendar', product: 'Google Calendar', style: 'camel', entities: [e('event', 'events', 'calendar', ['confirmed', 'tentative', 'cancelled'], ['summary', 'start', 'end', 'attendees']), e('calendar', 'calendars', 'account', ['owner', 'reader'], ['summary', 'timeZone', 'color'])] },
  { name: 'drive', product: 'Google Drive', style: 'camel', entities: [e('file', 'files', 'folder', ['active', 'trashed'], ['name', 'mimeType', 'parents']), e('permission', 'permissions', 'file', ['reader', 'commenter', 'writer'], ['email', 'role', 'expiration'])] },
  { name: 'notion', product: 'Notion', style: 'camel', entities: [e('page', 'pages', 'workspace', ['active', 'archived'], ['title', 'properties', 'parent']), e('database', 'databases', 'workspace', ['active', 'archived'], ['title', 'properties', 'views'])] },
  { name: 'linear', product: 'Linear', style: 'kebab', entities: [e('issue', 'issues', 'team', ['backlog', 'todo', 'in_progress', 'done', 'canceled'], ['title', 'description', 'estimate', 'cycle']), e('project', 'projects', 'team', ['planned', 'started', 'completed'], ['name', 'lead', 'target_date'])] },
  { name: 'sentry', product: 'Sentry', style: 'snake', entities: [e('issue', 'issues', 'project', ['unresolved', 'resolved', 'ignored'], ['culprit', 'level', 'first_seen']), e('alert rule', 'alert rules', 'project', ['enabled', 'disabled'], ['conditions', 'actions', 'frequency'])] },
  { name: 'datadog', product: 'Datadog', style: 'snake', entities: [e('monitor', 'monitors', 'organization', ['ok', 'warn', 'alert', 'no_data'], ['query', 'message', 'thresholds']), e('dashboard', 'dashboards', 'organization', ['shared', 'private'], ['title', 'widgets', 'layout']), e('incident', 'incidents', 'organization', ['active', 'stable', 'resolved'], ['title', 'severity', 'commander'])] },
  { name: 'k8s', product: 'Kubernetes', style: 'kebab', entities: [e('pod', 'pods', 'namespace', ['pending', 'running', 'succeeded', 'failed'], ['image', 'node', 'restarts']), e('deployment', 'deployments', 'namespace', ['progressing', 'available', 'failed'], ['replicas', 'image', 'strategy']), e('config map', 'config maps', 'namespace', ['immutable', 'mutable'], ['data', 'labels', 'annotations'])] },
  { name: 's3', product: 'Amazon S3', style: 'camel', entities: [e('bucket', 'buckets', 'account', ['enabled', 'suspended'], ['region', 'versioning', 'policy']), e('object', 'objects', 'bucket', ['standard', 'glacier'], ['key', 'size', 'contentType'])] },
  { name: 'zendesk', product: 'Zendesk', style: 'snake', entities: [e('ticket', 'tickets', 'help desk', ['new', 'open', 'pending', 'solved'], ['subject', 'requester', 'priority']), e('macro', 'macros', 'help desk', ['active', 'inactive'], ['title', 'actions', 'restriction'])] },
  { name: 'hubspot', product: 'HubSpot', style: 'camel', entities: [e('contact', 'contacts', 'portal', ['lead', 'customer', 'evangelist'], ['email', 'firstname', 'lifecyclestage']), e('deal', 'deals', 'pipeline', ['appointment', 'qualified', 'closed_won', 'closed_lost'], ['amount', 'dealname', 'closedate'])] },
  { name: 'confluence', product: 'Confluence', style: 'kebab', entities: [e('page', 'pages', 'space', ['current', 'draft', 'archived'], ['title', 'body', 'ancestors']), e('space', 'spaces', 'site', ['current', 'archived'], ['key', 'name', 'homepage'])] },
  { name: 'gitlab', product: 'GitLab', style: 'snake', entities: [e('merge request', 'merge requests', 'project', ['opened', 'closed', 'merged'], ['title', 'description', 'source_branch', 'target_branch']), e('pipeline', 'pipelines', 'project', ['running', 'success', 'failed'], ['ref', 'sha', 'duration'])] },
  { name: 'asana', product: 'Asana', style: 'camel', entities: [e('task', 'tasks', 'project', ['incomplete', 'completed'], ['name', 'notes', 'dueOn', 'assignee']), e('portfolio', 'portfolios', 'workspace', ['on_track', 'at_risk', 'off_track'], ['name', 'owner', 'color'])] },
  { name: 'twilio', product: 'Twilio', style: 'snake', entities: [e('sms message', 'sms messages', 'account', ['queued', 'sent', 'delivered', 'failed'], ['to', 'from', 'body']), e('phone number', 'phone numbers', 'account', ['active', 'released'], ['number', 'friendly_name', 'capabilities'])] },
  { name: 'bigquery', product: 'BigQuery', style: 'snake', entities: [e('dataset', 'datasets', 'project', ['active', 'deleted'], ['dataset_id', 'location', 'labels']), e('job', 'jobs', 'project', ['pending', 'running', 'done'], ['query', 'destination', 'bytes_processed'])] },
  { name: 'okta', product: 'Okta', style: 'camel', entities: [e('user', 'users', 'organization', ['staged', 'active', 'suspended', 'deprovisioned'], ['login', 'email', 'department']), e('group', 'groups', 'organization', ['okta_group', 'app_group'], ['name', 'description', 'members'])] },
  { name: 'pagerduty', product: 'PagerDuty', style: 'snake', entities: [e('incident', 'incidents', 'service', ['triggered', 'acknowledged', 'resolved'], ['title', 'urgency', 'assignments']), e('on-call schedule', 'on-call schedules', 'account', ['active', 'inactive'], ['name', 'layers', 'time_zone'])] },
];

type Verb = 'list' | 'get' | 'create' | 'update' | 'delete' | 'search' | 'comment_on' | 'export' | 'restore' | 'archive' | 'assign';
const VERBS: readonly Verb[] = ['list', 'get', 'create', 'update', 'search', 'delete', 'comment_on', 'assign', 'export', 'archive', 'restore'];

function words(verb: Verb, entity: Entity): string[] {
  const noun = verb === 'list' || verb === 'search' || verb === 'export' ? entity.many : entity.one;
  return [...verb.split('_'), ...noun.replace(/-/g, ' ').split(' ')];
}

function toolName(service: Service, verb: Verb, entity: Entity): string {
  const w = words(verb, entity);
  const local = service.style === 'snake' ? w.join('_') : service.style === 'kebab' ? w.join('-') : w.map((x, i) => (i === 0 ? x : x[0]!.toUpperCase() + x.slice(1))).join('');
  return `${service.name}.${local}`;
}

const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
/** `a` or `an` before a word. */
const a = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

function description(service: Service, verb: Verb, entity: Entity): string {
  const { one, many, container, states, fields } = entity;
  const p = service.product;
  switch (verb) {
    case 'list':
      return `List ${many} in ${a(p)} ${container}, newest first. Filter by state (${states.join(', ')}), owner and labels; results are paginated, so pass \`cursor\` from the previous page to continue.\nEach item carries its id, ${fields.slice(0, 2).join(' and ')}, state and last update time.`;
    case 'get':
      return `Get one ${p} ${one} by id, with its ${fields.join(', ')}. Fails when the ${one} does not exist or the token cannot see it.`;
    case 'create':
      return `Create a ${one} in ${a(p)} ${container}. Returns the new ${one}'s id and web URL.\nRequires write access to the ${container}; ${fields[0]} is required, the other fields are optional.`;
    case 'update':
      return `Update fields of an existing ${p} ${one}: only the fields you pass change. Pass \`expectedVersion\` to fail instead of overwriting a concurrent edit.`;
    case 'search':
      return `Search ${p} ${many} by full-text query over ${fields.slice(0, 2).join(' and ')}. Supports quoted phrases and \`field:value\` filters; returns the best matches with a snippet each.`;
    case 'delete':
      return `Delete ${a(p)} ${one} permanently. This cannot be undone; prefer archiving where the ${container} allows it.`;
    case 'comment_on':
      return `Add a comment to ${a(p)} ${one}, optionally mentioning people. Markdown is supported; returns the comment id.`;
    case 'export':
      return `Export ${p} ${many} of ${a(container)} as CSV or JSON. Large exports run in the background and return a download URL when ready.`;
    case 'archive':
      return `Archive ${a(p)} ${one}: it leaves default views and searches but can be restored. Archiving an archived ${one} changes nothing.`;
    case 'assign':
      return `Assign ${a(p)} ${one} to a person or a team, replacing the current assignee. Pass null to unassign; the new assignee is notified.`;
    case 'restore':
      return `Restore a deleted or archived ${p} ${one} within the retention window (30 days). Fails when the ${one} was purged.`;
  }
}

const str = (description: string, extra: Partial<ParamSpec> = {}): ParamSpec => ({ type: 'string', description, ...extra }) as ParamSpec;

function parameters(verb: Verb, entity: Entity): ParamsShorthand {
  const id = str(`The ${entity.one} id`, { required: true, minLength: 1 });
  const container = str(`The ${entity.container} (id or key)`, { required: true });
  const fields = Object.fromEntries(entity.fields.map((f, i) => [f.replace(/\W/g, '_'), str(`${cap(f.replace(/_/g, ' '))} of the ${entity.one}`, i === 0 && verb === 'create' ? { required: true } : {})]));
  switch (verb) {
    case 'list':
      return {
        [entity.container.replace(/\W/g, '_')]: container,
        filter: {
          type: 'object',
          description: 'Only items matching every given field',
          properties: {
            state: { type: 'array', items: { type: 'string', enum: [...entity.states] }, description: 'Any of these states' },
            owner: { type: 'string', nullable: true, description: 'Owner login, or null for unowned' },
            labels: { type: 'array', items: { type: 'string' }, maxItems: 20 },
            updatedAfter: { type: 'string', description: 'ISO 8601 time' },
          },
        },
        sort: { type: 'string', enum: ['updated', 'created', 'name'], default: 'updated' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'Items per page' },
        cursor: str('Cursor from the previous page'),
      } as ParamsShorthand;
    case 'get':
      return { id, include: { type: 'array', items: { type: 'string', enum: [...entity.fields, 'history', 'permissions'] }, description: 'Extra parts to include' } } as ParamsShorthand;
    case 'create':
      return { [entity.container.replace(/\W/g, '_')]: container, ...fields, labels: { type: 'array', items: { type: 'string' } }, dryRun: { type: 'boolean', default: false, description: 'Validate without creating' } } as ParamsShorthand;
    case 'update':
      return { id, patch: { type: 'object', required: true, properties: { ...fields, state: { type: 'string', enum: [...entity.states] } }, description: 'Fields to change' }, expectedVersion: { type: 'integer', minimum: 0 } } as ParamsShorthand;
    case 'search':
      return { query: str('Search text; quoted phrases and field:value filters', { required: true, maxLength: 500 }), scope: str(`Limit to one ${entity.container}`), limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 } } as ParamsShorthand;
    case 'delete':
      return { id, reason: str('Why, for the audit log', { maxLength: 200 }) } as ParamsShorthand;
    case 'comment_on':
      return { id, body: str('Markdown text', { required: true, maxLength: 10_000 }), mentions: { type: 'array', items: { type: 'string' }, description: 'Logins to notify' } } as ParamsShorthand;
    case 'export':
      return { [entity.container.replace(/\W/g, '_')]: container, format: { type: 'string', enum: ['csv', 'json'], default: 'csv' }, columns: { type: 'array', items: { type: 'string', enum: [...entity.fields] } } } as ParamsShorthand;
    case 'restore':
      return { id } as ParamsShorthand;
    case 'archive':
      return { id, note: str('Shown in the activity log') } as ParamsShorthand;
    case 'assign':
      return { id, assignee: { type: 'object', required: true, nullable: true, properties: { kind: { type: 'string', enum: ['user', 'team'], required: true }, login: str('User login or team key', { required: true }) }, description: 'Who takes it over; null to unassign' }, notify: { type: 'boolean', default: true } } as ParamsShorthand;
  }
}

function output(verb: Verb, entity: Entity): ParamSpec {
  const item: ParamSpec = {
    type: 'object',
    properties: {
      id: { type: 'string', required: true },
      ...Object.fromEntries(entity.fields.slice(0, 2).map((f) => [f.replace(/\W/g, '_'), { type: 'string', required: true, nullable: true }])),
      state: { type: 'string', enum: [...entity.states], required: true },
      updatedAt: { type: 'string', required: true, description: 'ISO 8601 time' },
      url: { type: 'string', required: true },
    },
  } as ParamSpec;
  switch (verb) {
    case 'list':
      return { type: 'object', properties: { items: { type: 'array', items: item, required: true }, nextCursor: { type: 'string', nullable: true, required: true } } } as ParamSpec;
    case 'search':
      return { type: 'object', properties: { total: { type: 'integer', required: true }, hits: { type: 'array', required: true, items: { type: 'object', properties: { id: { type: 'string', required: true }, title: { type: 'string', required: true }, snippet: { type: 'string', required: true }, score: { type: 'number', required: true } } } } } } as ParamSpec;
    case 'get':
    case 'restore':
    case 'archive':
    case 'assign':
      return item;
    case 'create':
    case 'comment_on':
      return { type: 'object', properties: { id: { type: 'string', required: true }, url: { type: 'string', required: true } } } as ParamSpec;
    case 'update':
      return { type: 'object', properties: { id: { type: 'string', required: true }, version: { type: 'integer', required: true }, changed: { type: 'array', items: { type: 'string' }, required: true } } } as ParamSpec;
    case 'delete':
      return { type: 'object', properties: { deleted: { type: 'boolean', required: true } } } as ParamSpec;
    case 'export':
      return { type: 'object', properties: { status: { type: 'string', enum: ['ready', 'running'], required: true }, url: { type: 'string', nullable: true, required: true } } } as ParamSpec;
  }
}

function emptyValue(verb: Verb, entity: Entity): unknown {
  switch (verb) {
    case 'list':
      return { items: [], nextCursor: null };
    case 'search':
      return { total: 0, hits: [] };
    case 'get':
    case 'restore':
    case 'archive':
    case 'assign':
      return { id: 'x', ...Object.fromEntries(entity.fields.slice(0, 2).map((f) => [f.replace(/\W/g, '_'), null])), state: entity.states[0], updatedAt: '2026-01-01T00:00:00Z', url: 'https://example.invalid/x' };
    case 'create':
    case 'comment_on':
      return { id: 'x', url: 'https://example.invalid/x' };
    case 'update':
      return { id: 'x', version: 1, changed: [] };
    case 'delete':
      return { deleted: false };
    case 'export':
      return { status: 'running', url: null };
  }
}

/** Every (service, entity, verb) combination, interleaved so any prefix mixes services and verbs. */
function combinations(): { service: Service; entity: Entity; verb: Verb }[] {
  const out: { service: Service; entity: Entity; verb: Verb }[] = [];
  const maxEntities = Math.max(...SERVICES.map((s) => s.entities.length));
  for (const verb of VERBS) {
    for (let ei = 0; ei < maxEntities; ei++) {
      for (const service of SERVICES) {
        const entity = service.entities[ei];
        if (entity) out.push({ service, entity, verb });
      }
    }
  }
  return out;
}

/** The number of distinct tools the catalog can make. */
export const CATALOG_CAPACITY = combinations().length;

/** The first `count` tools of the synthetic catalog (at most {@link CATALOG_CAPACITY}). */
export function syntheticCatalog(count: number): Tool[] {
  const all = combinations();
  if (!Number.isInteger(count) || count < 0 || count > all.length) throw new RangeError(`syntheticCatalog: count must be a whole number from 0 to ${all.length}, got ${count}`);
  return all.slice(0, count).map(({ service, entity, verb }) =>
    defineTool({
      name: toolName(service, verb, entity),
      description: description(service, verb, entity),
      parameters: parameters(verb, entity),
      output: { schema: output(verb, entity) },
      ...(verb === 'list' || verb === 'get' || verb === 'search' ? { isConcurrencySafe: true } : {}),
      execute: () => emptyValue(verb, entity) as never,
    }) as Tool,
  );
}
