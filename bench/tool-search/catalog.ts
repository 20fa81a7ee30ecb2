/**
 * The labelled catalog of the tool_search evaluation (issue 30): tools of the services a
 * business agent connects, with look-alikes across them on purpose. Customers are in the online
 * store, the payments provider, the ERP, the accounting system and an in-house back office;
 * stock is in the store, the ERP, the warehouse system and the back office; tickets are in the
 * support desk and the CRM; orders in the store, the ERP, the shipping service and the back
 * office. Each service names its tools in its own style (`shopify.list_customers`,
 * `hubspot.searchContacts`, `netsuite.list-sales-orders`, and unprefixed `customers_search`),
 * and each description is what such a server would say: a sentence or two, the fields, the
 * filters. Deterministic; the tools run nothing.
 *
 * queries.ts holds the plain-words queries and the tools that answer them.
 */
import { defineTool, type Tool } from '../../tools/index.js';
import type { ParamsShorthand } from '../../tools/shorthand-schema.js';

type Style = 'snake' | 'camel' | 'kebab';

/** One operation of an entity: the verb words of the tool name, its description, its parameters. */
interface Operation {
  readonly verb: string;
  readonly description: string;
  readonly parameters?: ParamsShorthand;
}

interface Entity {
  /** Name words for one and many (`inventory level`, `inventory levels`). */
  readonly one: string;
  readonly many: string;
  readonly operations: readonly Operation[];
}

/** A service: its namespace (empty: tools without a prefix), naming style, and entities. */
export interface CatalogService {
  readonly namespace: string;
  readonly style: Style;
  readonly entities: readonly Entity[];
}

const text = (description: string, required = false) => ({ type: 'string' as const, description, ...(required ? { required: true } : {}) });
const page = { limit: { type: 'integer' as const, minimum: 1, maximum: 250, default: 50, description: 'Items per page' }, cursor: text('Cursor from the previous page') };
const byId = (what: string) => ({ id: text(`The ${what} id`, true) });
const query = (over: string) => ({ query: text(`Search text, matched against ${over}`, true), limit: { type: 'integer' as const, minimum: 1, maximum: 100, default: 20 } });

/** Builds the usual list/search/get/create/update/delete operations of an entity from short phrases. */
function crud(o: {
  product: string;
  one: string;
  many: string;
  list?: string;
  search?: string;
  get?: string;
  create?: string;
  update?: string;
  remove?: string;
  filters?: ParamsShorthand;
  fields?: ParamsShorthand;
}): Operation[] {
  const ops: Operation[] = [];
  if (o.list) ops.push({ verb: 'list', description: o.list, parameters: { ...(o.filters ?? {}), ...page } });
  if (o.search) ops.push({ verb: 'search', description: o.search, parameters: query(`${o.many}`) });
  if (o.get) ops.push({ verb: 'get', description: o.get, parameters: byId(`${o.product} ${o.one}`) });
  if (o.create) ops.push({ verb: 'create', description: o.create, parameters: o.fields ?? {} });
  if (o.update) ops.push({ verb: 'update', description: o.update, parameters: { ...byId(o.one), ...(o.fields ?? {}) } });
  if (o.remove) ops.push({ verb: 'delete', description: o.remove, parameters: byId(o.one) });
  return ops;
}

const e = (one: string, many: string, operations: Operation[]): Entity => ({ one, many, operations });

export const SERVICES: readonly CatalogService[] = [
  {
    namespace: 'shopify',
    style: 'snake',
    entities: [
      e('customer', 'customers', crud({
        product: 'Shopify', one: 'customer', many: 'customers',
        list: 'List the customers of the Shopify online store, newest first. Filter by creation date, tag or whether they accept marketing; paginated.',
        search: 'Search Shopify store customers by name, email, phone or tag. Returns matching customer records with order count and total spent.',
        get: 'Get one Shopify customer by id: name, email, addresses, tags, order count and total spent.',
        create: 'Create a customer in the Shopify store with name, email and optional address.',
        update: 'Update a Shopify customer: email, phone, tags, marketing consent or default address.',
        filters: { createdAfter: text('ISO date'), tag: text('Customer tag') },
        fields: { email: text('Email address'), firstName: text('First name'), lastName: text('Last name') },
      })),
      e('order', 'orders', [
        ...crud({
          product: 'Shopify', one: 'order', many: 'orders',
          list: 'List orders placed in the Shopify online store. Filter by customer, financial status (paid, pending, refunded) or fulfillment status.',
          get: 'Get a Shopify order by id with its line items, customer, totals, payment and fulfillment status.',
          filters: { customerId: text('Only orders of this customer'), financialStatus: { type: 'string', enum: ['paid', 'pending', 'refunded'] } },
        }),
        { verb: 'cancel', description: 'Cancel an open Shopify order, optionally restocking its items and refunding the payment.', parameters: { ...byId('order'), restock: { type: 'boolean', default: true } } },
        { verb: 'refund', description: 'Refund a Shopify order fully or for some line items; the money goes back through the original payment method.', parameters: { ...byId('order'), amount: { type: 'number' } } },
      ]),
      e('product', 'products', crud({
        product: 'Shopify', one: 'product', many: 'products',
        list: 'List products in the Shopify catalog with their variants, prices and status (active, draft, archived).',
        search: 'Search Shopify products by title, SKU, vendor or product type.',
        get: 'Get a Shopify product with variants, prices, images and SEO fields.',
        create: 'Create a product in the Shopify catalog, with title, price and variants.',
        update: 'Update a Shopify product: title, description, price, status or tags.',
        fields: { title: text('Product title'), price: { type: 'number' } },
      })),
      e('inventory level', 'inventory levels', [
        { verb: 'list', description: 'List inventory levels of Shopify products: available quantity of each variant at each store location.', parameters: { locationId: text('Store location'), sku: text('Variant SKU'), ...page } },
        { verb: 'adjust', description: 'Adjust the available quantity of a Shopify product variant at a location by a delta (for example after a recount).', parameters: { sku: text('Variant SKU', true), locationId: text('Location', true), delta: { type: 'integer', required: true } } },
      ]),
      e('fulfillment', 'fulfillments', [{ verb: 'create', description: 'Mark Shopify order items as shipped: creates a fulfillment with the tracking number and notifies the customer.', parameters: { orderId: text('Order', true), trackingNumber: text('Tracking number') } }]),
      e('discount code', 'discount codes', crud({
        product: 'Shopify', one: 'discount code', many: 'discount codes',
        list: 'List discount codes of the Shopify store and how often each was used.',
        create: 'Create a Shopify discount code: percentage or fixed amount, minimum order, expiry date.',
        fields: { code: text('The code customers type'), percent: { type: 'number' } },
      })),
    ],
  },
  {
    namespace: 'stripe',
    style: 'snake',
    entities: [
      e('customer', 'customers', crud({
        product: 'Stripe', one: 'customer', many: 'customers',
        list: 'List Stripe customers (the payers on your Stripe account), newest first; filter by email or creation date.',
        search: 'Search Stripe customers with Stripe\'s query language over email, name, phone and metadata.',
        get: 'Retrieve a Stripe customer by id: email, default payment method, balance, currency.',
        create: 'Create a Stripe customer so you can charge them and save payment methods.',
        update: 'Update a Stripe customer\'s email, name, default payment method or metadata.',
        remove: 'Delete a Stripe customer permanently; their subscriptions are cancelled.',
        filters: { email: text('Exact email') },
        fields: { email: text('Email'), name: text('Full name') },
      })),
      e('payment', 'payments', crud({
        product: 'Stripe', one: 'payment', many: 'payments',
        list: 'List Stripe payments (payment intents and charges) with amount, currency, status and the customer who paid.',
        get: 'Retrieve one Stripe payment intent with its charges, status and failure reason.',
        create: 'Charge a customer: create a Stripe payment intent for an amount and currency and confirm it with a saved card.',
        filters: { customer: text('Customer id'), status: { type: 'string', enum: ['succeeded', 'failed', 'pending'] } },
        fields: { amount: { type: 'integer', required: true }, currency: text('ISO currency', true), customer: text('Customer id') },
      })),
      e('refund', 'refunds', crud({
        product: 'Stripe', one: 'refund', many: 'refunds',
        list: 'List refunds issued on the Stripe account, with the payment each refunds.',
        create: 'Refund a Stripe payment (charge or payment intent), fully or partly; the money goes back to the card.',
        fields: { payment: text('Payment intent or charge id', true), amount: { type: 'integer' } },
      })),
      e('invoice', 'invoices', crud({
        product: 'Stripe', one: 'invoice', many: 'invoices',
        list: 'List Stripe invoices for subscriptions and one-off billing; filter by customer and status (draft, open, paid, void).',
        get: 'Retrieve a Stripe invoice with its line items, amount due and hosted payment page link.',
        create: 'Create a draft Stripe invoice for a customer from pending invoice items.',
        filters: { customer: text('Customer id'), status: { type: 'string', enum: ['draft', 'open', 'paid', 'void'] } },
      })),
      e('subscription', 'subscriptions', crud({
        product: 'Stripe', one: 'subscription', many: 'subscriptions',
        list: 'List Stripe subscriptions (recurring billing) with plan, status and the next billing date.',
        create: 'Subscribe a Stripe customer to a recurring price.',
        update: 'Change a Stripe subscription: plan, quantity, trial end.',
        remove: 'Cancel a Stripe subscription at once or at the end of the billing period.',
        filters: { customer: text('Customer id') },
      })),
      e('payout', 'payouts', crud({
        product: 'Stripe', one: 'payout', many: 'payouts',
        list: 'List Stripe payouts: transfers of your Stripe balance to your bank account, with arrival dates.',
      })),
      e('balance', 'balance', [{ verb: 'get', description: 'Get the Stripe account balance: available and pending funds per currency.', parameters: {} }]),
    ],
  },
  {
    namespace: 'hubspot',
    style: 'camel',
    entities: [
      e('contact', 'contacts', crud({
        product: 'HubSpot', one: 'contact', many: 'contacts',
        list: 'List contacts in the HubSpot CRM with their lifecycle stage and owner.',
        search: 'Search HubSpot CRM contacts by name, email, company or any contact property.',
        get: 'Get a HubSpot contact with its properties and associated companies and deals.',
        create: 'Create a contact (a person) in the HubSpot CRM.',
        update: 'Update properties of a HubSpot contact, such as lifecycle stage or owner.',
        fields: { email: text('Email'), firstname: text('First name'), lastname: text('Last name') },
      })),
      e('company', 'companies', crud({
        product: 'HubSpot', one: 'company', many: 'companies',
        list: 'List companies (organizations) in the HubSpot CRM.',
        search: 'Search HubSpot companies by name or web domain.',
        get: 'Get a HubSpot company with its properties, contacts and deals.',
        create: 'Create a company record in the HubSpot CRM.',
        fields: { name: text('Company name'), domain: text('Web domain') },
      })),
      e('deal', 'deals', crud({
        product: 'HubSpot', one: 'deal', many: 'deals',
        list: 'List deals in the HubSpot sales pipeline with amount, stage and close date.',
        search: 'Search HubSpot deals by name, stage, owner or amount.',
        create: 'Create a deal (a sales opportunity) in a HubSpot pipeline stage.',
        update: 'Move a HubSpot deal to another stage or change its amount or close date.',
        fields: { dealname: text('Deal name'), amount: { type: 'number' }, dealstage: text('Pipeline stage') },
      })),
      e('ticket', 'tickets', crud({
        product: 'HubSpot', one: 'ticket', many: 'tickets',
        list: 'List HubSpot service tickets attached to CRM contacts and companies.',
        search: 'Search HubSpot service tickets by subject, pipeline stage or contact.',
        create: 'Create a HubSpot service ticket for a contact.',
      })),
      e('note', 'notes', crud({
        product: 'HubSpot', one: 'note', many: 'notes',
        create: 'Add a note to a HubSpot contact, company or deal timeline.',
        fields: { body: text('Note text', true), objectId: text('Record the note is attached to', true) },
      })),
    ],
  },
  {
    namespace: 'netsuite',
    style: 'kebab',
    entities: [
      e('customer', 'customers', crud({
        product: 'NetSuite', one: 'customer', many: 'customers',
        list: 'List customer records in the NetSuite ERP, with subsidiary, terms and credit limit.',
        get: 'Get a NetSuite customer record: billing address, terms, credit limit and balance.',
        create: 'Create a customer record in NetSuite.',
      })),
      e('sales order', 'sales orders', crud({
        product: 'NetSuite', one: 'sales order', many: 'sales orders',
        list: 'List NetSuite sales orders with status (pending approval, pending fulfillment, billed) and customer.',
        get: 'Get a NetSuite sales order with its lines, quantities and amounts.',
        create: 'Enter a sales order in NetSuite for a customer, with item lines.',
        filters: { customer: text('Customer internal id'), status: text('Order status') },
      })),
      e('item', 'items', crud({
        product: 'NetSuite', one: 'item', many: 'items',
        list: 'List NetSuite items (inventory, non-inventory and service items) with their base price.',
        search: 'Search NetSuite items by name, SKU (item id) or UPC.',
        get: 'Get a NetSuite item record with pricing, vendor and reorder point.',
      })),
      e('inventory balance', 'inventory balances', [
        { verb: 'list', description: 'List NetSuite inventory balances: quantity on hand, available and on order of each item at each location.', parameters: { item: text('Item id'), location: text('Location id'), ...page } },
      ]),
      e('item receipt', 'item receipts', [{ verb: 'create', description: 'Receive a NetSuite purchase order: record the items that arrived, which adds them to inventory.', parameters: { purchaseOrder: text('Purchase order id', true) } }]),
      e('vendor', 'vendors', crud({
        product: 'NetSuite', one: 'vendor', many: 'vendors',
        list: 'List NetSuite vendor records (suppliers you buy from).',
        create: 'Create a vendor (supplier) record in NetSuite.',
      })),
      e('purchase order', 'purchase orders', crud({
        product: 'NetSuite', one: 'purchase order', many: 'purchase orders',
        list: 'List NetSuite purchase orders sent to vendors, with expected receipt dates.',
        create: 'Create a NetSuite purchase order to buy items from a vendor.',
        fields: { vendor: text('Vendor id', true) },
      })),
    ],
  },
  {
    namespace: 'zendesk',
    style: 'snake',
    entities: [
      e('ticket', 'tickets', [
        ...crud({
          product: 'Zendesk', one: 'ticket', many: 'tickets',
          list: 'List Zendesk support tickets; filter by status (new, open, pending, solved), assignee or requester.',
          search: 'Search Zendesk tickets by subject, description text, tags or requester.',
          get: 'Get a Zendesk ticket with its subject, status, priority, requester and assignee.',
          create: 'Open a new Zendesk support ticket on behalf of a customer.',
          update: 'Update a Zendesk ticket: status, priority, assignee or tags.',
          filters: { status: { type: 'string', enum: ['new', 'open', 'pending', 'solved'] }, assignee: text('Agent id') },
          fields: { subject: text('Subject'), priority: { type: 'string', enum: ['low', 'normal', 'high', 'urgent'] } },
        }),
        { verb: 'reply to', description: 'Add a public reply (emailed to the requester) or a private internal note to a Zendesk ticket.', parameters: { ...byId('ticket'), body: text('Text', true), public: { type: 'boolean', default: true } } },
      ]),
      e('user', 'users', crud({
        product: 'Zendesk', one: 'user', many: 'users',
        search: 'Search Zendesk users (end users who file tickets, and agents) by name or email.',
        get: 'Get a Zendesk user with role, organization and contact details.',
      })),
      e('organization', 'organizations', crud({
        product: 'Zendesk', one: 'organization', many: 'organizations',
        list: 'List Zendesk organizations (customer companies grouping end users).',
      })),
      e('macro', 'macros', [{ verb: 'apply', description: 'Apply a Zendesk macro (a saved set of ticket updates and a canned reply) to a ticket.', parameters: { ticketId: text('Ticket', true), macroId: text('Macro', true) } }]),
      e('satisfaction rating', 'satisfaction ratings', crud({ product: 'Zendesk', one: 'satisfaction rating', many: 'satisfaction ratings', list: 'List customer satisfaction (CSAT) ratings given on solved Zendesk tickets.' })),
    ],
  },
  {
    namespace: 'shipstation',
    style: 'kebab',
    entities: [
      e('order', 'orders', crud({
        product: 'ShipStation', one: 'order', many: 'orders',
        list: 'List orders awaiting shipment in ShipStation, imported from your sales channels.',
        get: 'Get a ShipStation order with ship-to address, items and package weight.',
      })),
      e('shipment', 'shipments', crud({
        product: 'ShipStation', one: 'shipment', many: 'shipments',
        list: 'List ShipStation shipments with carrier, service, tracking number and ship date.',
        get: 'Get a ShipStation shipment with its tracking number and delivery status.',
      })),
      e('label', 'labels', [
        { verb: 'create', description: 'Buy and create a shipping label for an order in ShipStation; returns the label PDF and tracking number.', parameters: { orderId: text('Order', true), carrierCode: text('Carrier', true), serviceCode: text('Service', true) } },
        { verb: 'void', description: 'Void an unused ShipStation shipping label and get the postage refunded.', parameters: byId('label') },
      ]),
      e('rate', 'rates', [{ verb: 'get', description: 'Get shipping rates from every connected carrier for a package: weight, dimensions, from and to postal codes.', parameters: { weightOz: { type: 'number', required: true }, fromPostalCode: text('From', true), toPostalCode: text('To', true) } }]),
      e('carrier', 'carriers', crud({ product: 'ShipStation', one: 'carrier', many: 'carriers', list: 'List the shipping carriers connected to ShipStation (UPS, FedEx, USPS, DHL) and their services.' })),
    ],
  },
  {
    namespace: 'quickbooks',
    style: 'snake',
    entities: [
      e('invoice', 'invoices', crud({
        product: 'QuickBooks', one: 'invoice', many: 'invoices',
        list: 'List QuickBooks invoices with customer, due date, total and open balance; filter for unpaid or overdue ones.',
        get: 'Get a QuickBooks invoice with its lines, taxes and balance due.',
        create: 'Create an invoice in QuickBooks for a customer, with product or service lines.',
        filters: { unpaidOnly: { type: 'boolean' }, customerId: text('Customer') },
      })),
      e('customer', 'customers', crud({
        product: 'QuickBooks', one: 'customer', many: 'customers',
        list: 'List customers in QuickBooks accounting, with open balance.',
        get: 'Get a QuickBooks customer with billing address and balance.',
      })),
      e('bill', 'bills', crud({
        product: 'QuickBooks', one: 'bill', many: 'bills',
        list: 'List bills from vendors recorded in QuickBooks (accounts payable), with due dates.',
        create: 'Record a vendor bill in QuickBooks.',
      })),
      e('payment', 'payments', crud({
        product: 'QuickBooks', one: 'payment', many: 'payments',
        list: 'List customer payments received in QuickBooks.',
        create: 'Record a customer payment in QuickBooks and apply it to open invoices.',
        fields: { customerId: text('Customer', true), amount: { type: 'number', required: true }, invoiceIds: { type: 'array', items: { type: 'string' } } },
      })),
      e('profit and loss report', 'profit and loss reports', [{ verb: 'get', description: 'Run the QuickBooks profit and loss report (income, expenses, net income) for a date range.', parameters: { from: text('Start date', true), to: text('End date', true) } }]),
    ],
  },
  {
    namespace: 'wms',
    style: 'camel',
    entities: [
      e('stock level', 'stock levels', [
        { verb: 'list', description: 'List stock levels in the warehouse: on-hand, reserved and free quantity of each SKU per bin and zone.', parameters: { sku: text('SKU'), zone: text('Warehouse zone'), ...page } },
        { verb: 'get', description: 'Get the warehouse stock level of one SKU across all bins, with reserved quantities.', parameters: { sku: text('SKU', true) } },
      ]),
      e('bin', 'bins', crud({ product: 'warehouse', one: 'bin', many: 'bins', list: 'List warehouse bin locations with capacity and current fill.' })),
      e('transfer', 'transfers', crud({
        product: 'warehouse', one: 'transfer', many: 'transfers',
        list: 'List stock transfers between warehouse bins or sites, pending and completed.',
        create: 'Move stock from one warehouse bin to another: creates a transfer task for the floor staff.',
        fields: { sku: text('SKU', true), fromBin: text('Source bin', true), toBin: text('Destination bin', true), quantity: { type: 'integer', required: true } },
      })),
      e('cycle count', 'cycle counts', crud({
        product: 'warehouse', one: 'cycle count', many: 'cycle counts',
        create: 'Schedule a cycle count: staff recount the physical stock of some bins and the system records the differences.',
        list: 'List warehouse cycle counts and the stock differences they found.',
      })),
      e('receipt', 'receipts', crud({
        product: 'warehouse', one: 'receipt', many: 'receipts',
        list: 'List inbound receipts: goods delivered to the warehouse dock against purchase orders.',
        create: 'Receive goods into the warehouse: record the quantities delivered for a purchase order.',
      })),
    ],
  },
  {
    namespace: 'mailchimp',
    style: 'camel',
    entities: [
      e('campaign', 'campaigns', [
        ...crud({
          product: 'Mailchimp', one: 'campaign', many: 'campaigns',
          list: 'List Mailchimp email campaigns with status (draft, scheduled, sent) and send time.',
          create: 'Create a Mailchimp email campaign for an audience with subject line and content.',
        }),
        { verb: 'send', description: 'Send a Mailchimp campaign now to its audience.', parameters: byId('campaign') },
      ]),
      e('audience', 'audiences', crud({ product: 'Mailchimp', one: 'audience', many: 'audiences', list: 'List Mailchimp audiences (mailing lists) with member counts.' })),
      e('member', 'members', crud({
        product: 'Mailchimp', one: 'member', many: 'members',
        list: 'List members (subscribers) of a Mailchimp audience with subscription status.',
        create: 'Add or subscribe an email address to a Mailchimp audience.',
        remove: 'Unsubscribe and archive a member of a Mailchimp audience.',
      })),
      e('campaign report', 'campaign reports', [{ verb: 'get', description: 'Get the report of a sent Mailchimp campaign: opens, clicks, bounces and unsubscribes.', parameters: byId('campaign') }]),
    ],
  },
  {
    namespace: 'slack',
    style: 'snake',
    entities: [
      e('message', 'messages', [
        { verb: 'post', description: 'Post a message to a Slack channel or thread as the bot.', parameters: { channel: text('Channel id or name', true), text: text('Message text', true), threadTs: text('Reply in this thread') } },
        { verb: 'search', description: 'Search Slack messages across channels by words, sender or date.', parameters: query('message text') },
        { verb: 'list', description: 'Read the recent message history of a Slack channel.', parameters: { channel: text('Channel', true), ...page } },
      ]),
      e('reaction', 'reactions', [{ verb: 'add', description: 'Add an emoji reaction to a Slack message.', parameters: { channel: text('Channel', true), ts: text('Message timestamp', true), name: text('Emoji name', true) } }]),
      e('channel', 'channels', crud({ product: 'Slack', one: 'channel', many: 'channels', list: 'List Slack channels in the workspace with topic and member count.', create: 'Create a Slack channel.' })),
      e('user', 'users', crud({ product: 'Slack', one: 'user', many: 'users', get: 'Get a Slack user profile: name, title, email, time zone.' })),
    ],
  },
  {
    namespace: 'gcal',
    style: 'camel',
    entities: [
      e('event', 'events', crud({
        product: 'Google Calendar', one: 'event', many: 'events',
        list: 'List Google Calendar events between two times, with attendees and video link.',
        create: 'Create a Google Calendar event (a meeting) and invite attendees.',
        update: 'Reschedule or edit a Google Calendar event.',
        remove: 'Delete a Google Calendar event and notify attendees.',
      })),
      e('free busy', 'free busy', [{ verb: 'query', description: 'Find free and busy times of people\'s Google calendars, to pick a meeting slot.', parameters: { emails: { type: 'array', items: { type: 'string' }, required: true }, from: text('Start', true), to: text('End', true) } }]),
    ],
  },
  {
    namespace: 'gdrive',
    style: 'camel',
    entities: [
      e('file', 'files', crud({
        product: 'Google Drive', one: 'file', many: 'files',
        list: 'List the files in a Google Drive folder.',
        search: 'Search Google Drive files and documents by name or full text.',
        get: 'Get a Google Drive file\'s metadata, or export a Google Doc as text.',
        create: 'Upload a new file to Google Drive.',
      })),
      e('permission', 'permissions', crud({ product: 'Google Drive', one: 'permission', many: 'permissions', create: 'Share a Google Drive file: give a person reader, commenter or writer access.' })),
    ],
  },
  {
    namespace: 'jira',
    style: 'kebab',
    entities: [
      e('issue', 'issues', crud({
        product: 'Jira', one: 'issue', many: 'issues',
        search: 'Search Jira issues with JQL (project, status, assignee, sprint).',
        get: 'Get a Jira issue with summary, status, assignee and comments.',
        create: 'Create a Jira issue (bug, task or story) in a project.',
        update: 'Update a Jira issue: transition its status, assign it, edit fields.',
      })),
      e('comment', 'comments', [{ verb: 'add', description: 'Add a comment to a Jira issue.', parameters: { issue: text('Issue key', true), body: text('Comment', true) } }]),
      e('sprint', 'sprints', crud({ product: 'Jira', one: 'sprint', many: 'sprints', list: 'List sprints of a Jira board: active, future and closed, with goals and dates.' })),
    ],
  },
  {
    namespace: 'github',
    style: 'snake',
    entities: [
      e('pull request', 'pull requests', crud({ product: 'GitHub', one: 'pull request', many: 'pull requests', list: 'List pull requests of a GitHub repository (open, closed, merged).', get: 'Get a GitHub pull request with diff stats, reviews and checks.', create: 'Open a pull request on GitHub from a branch.' })),
      e('pull request', 'pull requests', [{ verb: 'merge', description: 'Merge a GitHub pull request (merge, squash or rebase).', parameters: { number: { type: 'integer', required: true }, method: { type: 'string', enum: ['merge', 'squash', 'rebase'] } } }]),
      e('issue', 'issues', crud({ product: 'GitHub', one: 'issue', many: 'issues', list: 'List issues of a GitHub repository by state and label.', create: 'Open an issue in a GitHub repository.' })),
    ],
  },
  {
    namespace: 'pagerduty',
    style: 'snake',
    entities: [
      e('incident', 'incidents', [
        ...crud({ product: 'PagerDuty', one: 'incident', many: 'incidents', list: 'List PagerDuty incidents (triggered, acknowledged, resolved) by service and urgency.', create: 'Trigger a PagerDuty incident on a service, paging the on-call responder.' }),
        { verb: 'acknowledge', description: 'Acknowledge a PagerDuty incident so it stops escalating.', parameters: byId('incident') },
        { verb: 'resolve', description: 'Resolve a PagerDuty incident.', parameters: byId('incident') },
      ]),
      e('oncall', 'oncalls', crud({ product: 'PagerDuty', one: 'on-call', many: 'on-calls', list: 'List who is on call now (or at a time) for each PagerDuty escalation policy and schedule.' })),
    ],
  },
  {
    namespace: 'woocommerce',
    style: 'snake',
    entities: [
      e('customer', 'customers', crud({
        product: 'WooCommerce', one: 'customer', many: 'customers',
        list: 'List customers of the WooCommerce shop (WordPress), with billing and shipping addresses.',
        get: 'Get a WooCommerce customer with addresses and order count.',
        create: 'Create a customer account in the WooCommerce shop.',
      })),
      e('order', 'orders', crud({
        product: 'WooCommerce', one: 'order', many: 'orders',
        list: 'List WooCommerce shop orders; filter by status (processing, on-hold, completed, refunded) and customer.',
        get: 'Get a WooCommerce order with line items, shipping lines and payment method.',
        update: 'Update a WooCommerce order: status, notes, shipping address.',
        filters: { status: text('Order status'), customer: text('Customer id') },
      })),
      e('product', 'products', crud({
        product: 'WooCommerce', one: 'product', many: 'products',
        list: 'List WooCommerce products with price, stock status and stock quantity.',
        get: 'Get a WooCommerce product with its variations.',
        update: 'Update a WooCommerce product: price, stock quantity, status.',
      })),
      e('refund', 'refunds', crud({ product: 'WooCommerce', one: 'refund', many: 'refunds', create: 'Refund a WooCommerce order, fully or for some items, through the payment gateway.' })),
    ],
  },
  {
    namespace: 'salesforce',
    style: 'camel',
    entities: [
      e('account', 'accounts', crud({
        product: 'Salesforce', one: 'account', many: 'accounts',
        search: 'Search Salesforce accounts (customer companies) by name, industry or owner.',
        get: 'Get a Salesforce account with its contacts, opportunities and open cases.',
        create: 'Create a Salesforce account record for a company.',
      })),
      e('contact', 'contacts', crud({
        product: 'Salesforce', one: 'contact', many: 'contacts',
        search: 'Search Salesforce contacts by name, email or account.',
        create: 'Create a Salesforce contact under an account.',
      })),
      e('lead', 'leads', crud({
        product: 'Salesforce', one: 'lead', many: 'leads',
        list: 'List Salesforce leads (prospects not yet qualified) by status and source.',
        create: 'Create a Salesforce lead from a prospect\'s name, company and email.',
      })),
      e('opportunity', 'opportunities', crud({
        product: 'Salesforce', one: 'opportunity', many: 'opportunities',
        list: 'List Salesforce opportunities (deals) with stage, amount and close date; filter by owner or stage.',
        update: 'Update a Salesforce opportunity: stage, amount, close date or next step.',
      })),
      e('case', 'cases', crud({
        product: 'Salesforce', one: 'case', many: 'cases',
        list: 'List Salesforce service cases (customer issues) by status and priority.',
        create: 'Open a Salesforce case for a customer issue.',
      })),
      e('query', 'queries', [{ verb: 'run soql', description: 'Run a SOQL query against Salesforce objects and return the records.', parameters: { soql: text('SOQL text', true) } }]),
    ],
  },
  {
    namespace: 'xero',
    style: 'camel',
    entities: [
      e('invoice', 'invoices', crud({
        product: 'Xero', one: 'invoice', many: 'invoices',
        list: 'List sales invoices and bills in Xero with status (draft, authorised, paid) and amount due.',
        create: 'Create a Xero sales invoice for a contact.',
      })),
      e('contact', 'contacts', crud({ product: 'Xero', one: 'contact', many: 'contacts', list: 'List Xero contacts (customers and suppliers) with outstanding balances.' })),
      e('bank transaction', 'bank transactions', crud({ product: 'Xero', one: 'bank transaction', many: 'bank transactions', list: 'List Xero bank transactions (spend and receive money) for a bank account, reconciled or not.' })),
    ],
  },
  {
    namespace: 'square',
    style: 'snake',
    entities: [
      e('payment', 'payments', crud({ product: 'Square', one: 'payment', many: 'payments', list: 'List card payments taken on Square point-of-sale terminals at your locations.', get: 'Get a Square payment with card details and receipt.' })),
      e('customer', 'customers', crud({ product: 'Square', one: 'customer', many: 'customers', search: 'Search the Square customer directory by phone, email or name.', create: 'Add a customer to the Square customer directory.' })),
      e('inventory count', 'inventory counts', [
        { verb: 'list', description: 'List Square inventory counts: in-stock quantity of each catalog item variation at each location.', parameters: { location: text('Location'), ...page } },
        { verb: 'adjust', description: 'Record a Square inventory adjustment (received, damaged, sold) for an item variation.', parameters: { variationId: text('Variation', true), quantity: { type: 'integer', required: true } } },
      ]),
      e('catalog item', 'catalog items', crud({ product: 'Square', one: 'catalog item', many: 'catalog items', list: 'List items of the Square catalog with variations and prices.', create: 'Create an item in the Square catalog.' })),
      e('refund', 'refunds', crud({ product: 'Square', one: 'refund', many: 'refunds', create: 'Refund a Square card payment.' })),
    ],
  },
  {
    namespace: 'intercom',
    style: 'snake',
    entities: [
      e('conversation', 'conversations', [
        ...crud({ product: 'Intercom', one: 'conversation', many: 'conversations', list: 'List Intercom conversations (chats with customers) by state: open, snoozed, closed.', get: 'Get an Intercom conversation with all its messages.' }),
        { verb: 'reply to', description: 'Reply to an Intercom conversation as an admin.', parameters: { ...byId('conversation'), body: text('Reply', true) } },
        { verb: 'close', description: 'Close an Intercom conversation.', parameters: byId('conversation') },
      ]),
      e('contact', 'contacts', crud({ product: 'Intercom', one: 'contact', many: 'contacts', search: 'Search Intercom contacts (users and leads) by email, name or custom attributes.' })),
    ],
  },
  {
    namespace: 'bamboohr',
    style: 'camel',
    entities: [
      e('employee', 'employees', crud({
        product: 'BambooHR', one: 'employee', many: 'employees',
        list: 'List employees in BambooHR: the staff directory with job title, department and manager.',
        get: 'Get a BambooHR employee record: job, department, hire date, manager.',
      })),
      e('time off request', 'time off requests', crud({
        product: 'BambooHR', one: 'time off request', many: 'time off requests',
        list: 'List BambooHR time off requests (vacation, sick leave) and who is out on a date.',
        create: 'Request time off in BambooHR for an employee.',
      })),
    ],
  },
  {
    namespace: 'twilio',
    style: 'snake',
    entities: [
      e('sms', 'sms', [{ verb: 'send', description: 'Send an SMS text message to a phone number with Twilio.', parameters: { to: text('Phone number', true), body: text('Text', true) } }]),
      e('message', 'messages', crud({ product: 'Twilio', one: 'message', many: 'messages', list: 'List SMS messages sent and received through Twilio with delivery status.' })),
    ],
  },
  {
    // The in-house back office: tools without a server prefix, named noun first.
    namespace: '',
    style: 'snake',
    entities: [
      e('customers', 'customers', [
        { verb: 'search', description: 'Search back-office customer accounts by name, email, phone or account number.', parameters: query('customer accounts') },
        { verb: 'get', description: 'Get a back-office customer account: contact details, loyalty tier, lifetime value.', parameters: byId('customer') },
      ]),
      e('orders', 'orders', [
        { verb: 'list', description: 'List back-office orders of all channels (web, store, phone) for a customer or a date range.', parameters: { customerId: text('Customer'), from: text('Date'), ...page } },
        { verb: 'get', description: 'Get a back-office order with lines, payments, shipments and returns.', parameters: byId('order') },
      ]),
      e('stock', 'stock', [
        { verb: 'check', description: 'Check stock of a product across all stores and the warehouse: quantity available per site.', parameters: { sku: text('SKU', true) } },
      ]),
      e('price', 'prices', [
        { verb: 'update', description: 'Change the selling price of a product in every channel from a date.', parameters: { sku: text('SKU', true), price: { type: 'number', required: true }, from: text('Date') } },
      ]),
    ],
  },
];

function words(text: string): string[] {
  return text.split(/[\s-]+/).filter(Boolean);
}

/** The tool name an operation gets in its service's style. */
function toolName(service: CatalogService, entity: Entity, op: Operation): string {
  const noun = op.verb === 'list' || op.verb === 'search' ? entity.many : entity.one;
  // The back office names tools noun first (`customers_search`), the servers verb first.
  const w = service.namespace === '' ? [...words(noun), ...words(op.verb)] : [...words(op.verb), ...words(noun)];
  const local =
    service.style === 'snake' ? w.join('_') : service.style === 'kebab' ? w.join('-') : w.map((x, i) => (i === 0 ? x : x[0]!.toUpperCase() + x.slice(1))).join('');
  return service.namespace === '' ? local : `${service.namespace}.${local}`;
}

/** The evaluation catalog: every operation of `services` (default: all) as a tool. */
export function evaluationCatalog(services: readonly CatalogService[] = SERVICES): Tool[] {
  return services.flatMap((service) =>
    service.entities.flatMap((entity) =>
      entity.operations.map((op) =>
        defineTool({ name: toolName(service, entity, op), description: op.description, parameters: op.parameters ?? {}, execute: () => null }) as Tool,
      ),
    ),
  );
}
