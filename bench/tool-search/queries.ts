/**
 * The labelled queries of the tool_search evaluation: what a model types when it needs a tool of
 * catalog.ts, in plain words, never the tool's name. About half name the product ("in Stripe")
 * the way a model that read the index would; the rest describe the need ("the warehouse", "the
 * CRM", "a card payment"). Each lists the tools that answer it: one, or several where the words
 * fit several services equally (an unqualified "list customers" is answered by any service's
 * customer listing, never by an orders tool that mentions customers).
 *
 * Written before the ranking was changed, from what the catalog's tools do, not from what any
 * ranking returned.
 */

/** One query and the tools that answer it (by tool name). */
export interface LabelledQuery {
  readonly query: string;
  readonly answers: readonly string[];
}

const q = (query: string, ...answers: string[]): LabelledQuery => ({ query, answers });

export const QUERIES: readonly LabelledQuery[] = [
  // Customers: five services and the back office have them.
  q('list the customers of the online store', 'shopify.list_customers', 'woocommerce.list_customers'),
  q('find a customer by email in Stripe', 'stripe.search_customers', 'stripe.list_customers'),
  q('look up a shopper by phone number at the point of sale', 'square.search_customers'),
  q('customer account with loyalty tier and lifetime value', 'customers_get'),
  q('search customer accounts by account number', 'customers_search'),
  q('customers with an open balance in accounting', 'quickbooks.list_customers', 'xero.listContacts'),
  q('credit limit of a customer in the ERP', 'netsuite.get-customer'),
  q('list customers', 'shopify.list_customers', 'stripe.list_customers', 'netsuite.list-customers', 'quickbooks.list_customers', 'woocommerce.list_customers'),
  q('list customers of the payments provider', 'stripe.list_customers'),
  // Orders.
  q('orders a customer placed in the Shopify store', 'shopify.list_orders'),
  q('cancel an order and restock the items', 'shopify.cancel_order'),
  q('refund an order in the WordPress shop', 'woocommerce.create_refund'),
  q('orders waiting to be shipped', 'shipstation.list-orders'),
  q('enter a sales order for a customer in the ERP', 'netsuite.create-sales-order'),
  q('all orders of a customer across web, store and phone', 'orders_list'),
  q('details of an order with its payments, shipments and returns', 'orders_get'),
  q('mark an order as shipped with a tracking number', 'shopify.create_fulfillment'),
  q('change the status of a WooCommerce order to completed', 'woocommerce.update_order'),
  // Stock.
  q('stock levels in the warehouse', 'wms.listStockLevels', 'wms.getStockLevel'),
  q('how many units of a product are available at each store location', 'shopify.list_inventory_levels', 'stock_check', 'square.list_inventory_counts'),
  q('quantity on hand and on order per item in NetSuite', 'netsuite.list-inventory-balances'),
  q('move stock from one bin to another', 'wms.createTransfer'),
  q('recount the stock in some bins', 'wms.createCycleCount'),
  q('record damaged goods in Square inventory', 'square.adjust_inventory_count'),
  q('fix the quantity of a variant after a recount in Shopify', 'shopify.adjust_inventory_level'),
  q('is this SKU in stock anywhere', 'stock_check', 'wms.getStockLevel'),
  q('stock levels', 'wms.listStockLevels', 'wms.getStockLevel', 'shopify.list_inventory_levels', 'netsuite.list-inventory-balances', 'square.list_inventory_counts', 'stock_check'),
  q('receive goods delivered at the dock', 'wms.createReceipt', 'netsuite.create-item-receipt'),
  // Products.
  q('change the price of a product everywhere from Monday', 'price_update'),
  q('find a product by SKU in the Shopify catalog', 'shopify.search_products'),
  q('items in the Square catalog with prices', 'square.list_catalog_items'),
  q('reorder point of an item in the ERP', 'netsuite.get-item'),
  q('create a 20% discount code', 'shopify.create_discount_code'),
  // Payments and accounting.
  q('refund a card payment in Stripe', 'stripe.create_refund'),
  q('charge a saved card', 'stripe.create_payment'),
  q('why did a payment fail', 'stripe.get_payment'),
  q('when will the money from Stripe arrive in our bank account', 'stripe.list_payouts'),
  q('available balance of the payments account', 'stripe.get_balance'),
  q("cancel a customer's subscription", 'stripe.delete_subscription'),
  q('upgrade a subscription to another plan', 'stripe.update_subscription'),
  q('unpaid invoices in QuickBooks', 'quickbooks.list_invoices'),
  q('overdue invoices', 'quickbooks.list_invoices', 'stripe.list_invoices', 'xero.listInvoices'),
  q('record a payment received against an invoice', 'quickbooks.create_payment'),
  q('bills we owe to suppliers', 'quickbooks.list_bills'),
  q('profit and loss for last quarter', 'quickbooks.get_profit_and_loss_report'),
  q('unreconciled bank transactions', 'xero.listBankTransactions'),
  q('card payments taken at the shop counter', 'square.list_payments'),
  // CRM.
  q('add a person to the CRM', 'hubspot.createContact', 'salesforce.createContact'),
  q('deals in the sales pipeline closing this month', 'hubspot.listDeals', 'salesforce.listOpportunities'),
  q('move a deal to the next stage', 'hubspot.updateDeal', 'salesforce.updateOpportunity'),
  q('find a company by its web domain', 'hubspot.searchCompanies'),
  q("log a note on a contact's timeline", 'hubspot.createNote'),
  q('new prospects that are not qualified yet', 'salesforce.listLeads'),
  q('query Salesforce records with SOQL', 'salesforce.runSoqlQuery'),
  q('customer company with its open cases in Salesforce', 'salesforce.getAccount'),
  // Support.
  q('open support tickets assigned to me', 'zendesk.list_tickets'),
  q("reply to a customer's ticket", 'zendesk.reply_to_ticket'),
  q('tickets mentioning a refund', 'zendesk.search_tickets', 'hubspot.searchTickets'),
  q('customer satisfaction scores', 'zendesk.list_satisfaction_ratings'),
  q('apply a canned response to a ticket', 'zendesk.apply_macro'),
  q('escalate a ticket to urgent priority', 'zendesk.update_ticket'),
  q('open chats with customers', 'intercom.list_conversations'),
  q('close a chat conversation', 'intercom.close_conversation'),
  // Shipping.
  q('print a shipping label for an order', 'shipstation.create-label'),
  q('tracking number of a shipment', 'shipstation.get-shipment', 'shipstation.list-shipments'),
  q('cheapest carrier rate for a 2 lb package', 'shipstation.get-rate'),
  q('cancel an unused label and get the postage back', 'shipstation.void-label'),
  // Marketing and messages.
  q('subscribers of a mailing list', 'mailchimp.listMembers'),
  q('send the newsletter now', 'mailchimp.sendCampaign'),
  q('open and click rates of the last email blast', 'mailchimp.getCampaignReport'),
  q('unsubscribe an email address', 'mailchimp.deleteMember'),
  q('text a customer their pickup code', 'twilio.send_sms'),
  q('post an update in the team channel', 'slack.post_message'),
  q('what did people say about the outage in chat', 'slack.search_messages'),
  // Everything else.
  q('book a meeting with the team next Tuesday', 'gcal.createEvent'),
  q('when is everyone free for a call', 'gcal.queryFreeBusy'),
  q('give a colleague edit access to a document', 'gdrive.createPermission'),
  q('find the Q3 planning doc', 'gdrive.searchFiles'),
  q('who is on call right now', 'pagerduty.list_oncalls'),
  q('acknowledge the alert so it stops paging', 'pagerduty.acknowledge_incident'),
  q('merge a pull request with squash', 'github.merge_pull_request'),
  q('file a bug in the tracker', 'jira.create-issue', 'github.create_issue'),
  q('who is on vacation this week', 'bamboohr.listTimeOffRequests'),
  q('staff directory with departments', 'bamboohr.listEmployees'),
  q('raise a purchase order to restock from a supplier', 'netsuite.create-purchase-order'),
];

/**
 * Queries written after the ranking was tuned on {@link QUERIES}, and never used to tune it:
 * the bench reports them apart, as a check that the ranking was not fitted to the first set.
 */
export const HELD_OUT_QUERIES: readonly LabelledQuery[] = [
  q('show me every product in the Shopify catalog', 'shopify.list_products'),
  q('add a new customer to the payments account', 'stripe.create_customer'),
  q('take a customer off a recurring plan', 'stripe.delete_subscription'),
  q('invoices of a Stripe customer', 'stripe.list_invoices'),
  q('get one sales order from the ERP', 'netsuite.get-sales-order'),
  q('suppliers in NetSuite', 'netsuite.list-vendors'),
  q('search items by UPC', 'netsuite.search-items'),
  q('create a support ticket for a customer', 'zendesk.create_ticket', 'hubspot.createTicket'),
  q('search the help desk users by email', 'zendesk.search_users'),
  q('list shipping carriers', 'shipstation.list-carriers'),
  q('create an invoice in accounting', 'quickbooks.create_invoice', 'xero.createInvoice'),
  q('payments received from customers in QuickBooks', 'quickbooks.list_payments'),
  q('goods received at the warehouse this week', 'wms.listReceipts'),
  q('free capacity of warehouse bins', 'wms.listBins'),
  q('draft a new email campaign', 'mailchimp.createCampaign'),
  q('mailing lists and how many members each has', 'mailchimp.listAudiences'),
  q('create a Slack channel for the launch', 'slack.create_channel'),
  q('recent messages in a channel', 'slack.list_messages'),
  q('move a meeting to Friday', 'gcal.updateEvent'),
  q('upload a spreadsheet to Drive', 'gdrive.createFile'),
  q('open pull requests in the repo', 'github.list_pull_requests'),
  q('page the on-call engineer about a broken checkout', 'pagerduty.create_incident'),
  q('close the incident now that it is fixed', 'pagerduty.resolve_incident'),
  q('details of an employee and their manager', 'bamboohr.getEmployee'),
  q('request two days off', 'bamboohr.createTimeOffRequest'),
  q('sales leads from the website form', 'salesforce.listLeads', 'salesforce.createLead'),
  q('update the amount of an opportunity', 'salesforce.updateOpportunity'),
  q('add stock received for a variation at a Square location', 'square.adjust_inventory_count'),
  q('WooCommerce products with low stock', 'woocommerce.list_products'),
  q('send a text message to a phone number', 'twilio.send_sms'),
];
