#!/usr/bin/env node
// The client the conformance suite drives (`conformance client --command "node client.mjs"`):
// ptc's import client, importMcpServers, as a host uses it. The suite starts a scenario server,
// appends its url to the command, and names the scenario in MCP_CONFORMANCE_SCENARIO (and, for
// pre-registered clients, the client's id and secret as JSON in MCP_CONFORMANCE_CONTEXT).
// PTC_CONFORMANCE_ROOT is the transpiled project (test/support/transpile-project.ts).
//
// What it does is what a host does: import the server (OAuth on: discovery, registration or a
// client ID metadata document, PKCE on a loopback redirect, client credentials), register its
// tools in a host and call them through the pipeline. The "person" who approves a login is the
// suite's authorization server, which redirects at once: `authorize` follows that redirect to
// ptc's loopback listener, as a browser would. Exit code 0 when every call went through.
const root = process.env.PTC_CONFORMANCE_ROOT;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const url = process.argv.at(-1);
if (!root || !url || !/^https?:/.test(url)) {
  process.stderr.write('usage: PTC_CONFORMANCE_ROOT=<transpiled project> MCP_CONFORMANCE_SCENARIO=<name> node client.mjs <server url>\n');
  process.exit(2);
}
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const { importMcpServers, createMemoryTokenStore } = await import(`${root}/mcp/index.js`);
const { createToolHost } = await import(`${root}/index.js`);

/** The suite's fixed client ID metadata document url (its basic-cimd scenario accepts it as is). */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';

/** A browser that approves: opens the authorization url and follows its redirect to the loopback listener. */
async function browse(authorizationUrl) {
  const answer = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = answer.headers.get('location');
  if (!location) throw new Error(`the authorization server answered ${answer.status} without a redirect`);
  await fetch(location);
}

/** The oauth options for a scenario: client credentials and pre-registered clients come from the context. */
function oauthFor(name) {
  const store = createMemoryTokenStore();
  if (name === 'auth/client-credentials-basic') return { grant: 'client_credentials', clientId: context.client_id, clientSecret: context.client_secret, store };
  if (name === 'auth/pre-registration') return { clientId: context.client_id, clientSecret: context.client_secret, authorize: browse, store };
  return { authorize: browse, clientMetadataUrl: CIMD_URL, store };
}

/** Arguments for the tools the scenarios' servers list (the rest take none). */
const ARGS = { add_numbers: { a: 2, b: 3 } };

const auth = scenario.startsWith('auth/');
const imported = await importMcpServers([{ name: 'conf', url, ...(auth ? { oauth: oauthFor(scenario) } : {}) }], {
  clientName: 'ptc-conformance-client',
  startTimeoutMs: 60_000,
  // A person who accepts what the server asks, leaving every field at its default.
  elicitation: async () => ({ action: 'accept', content: {} }),
});
let failed = false;
try {
  const host = createToolHost();
  imported.register(host);
  for (const tool of imported.tools) {
    const plain = tool.name.slice('conf.'.length);
    const r = await host.call({ id: `c-${plain}`, name: tool.name, args: ARGS[plain] ?? {} });
    process.stdout.write(`${tool.name}: ${r.isError ? `error: ${r.error?.message}` : JSON.stringify(r.value)}\n`);
    if (r.isError) failed = true;
  }
} finally {
  await imported.close();
}
process.exit(failed ? 1 : 0);
