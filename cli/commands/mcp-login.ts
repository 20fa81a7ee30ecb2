/**
 * `ptc mcp login NAME` and `ptc mcp logout NAME`: the OAuth login to an imported HTTP server,
 * ahead of `ptc run` / `ptc mcp serve` (which log in the same way when they must, but a login
 * is better done once, at a terminal). The server is found by name among the servers the
 * import flags name (`--mcp-config`, `--mcp`; `./mcp.json` when neither is given). The login
 * prints the authorization url on stderr and waits for the browser's redirect to a loopback
 * listener; the tokens go to the server's 0600 token file. `logout` deletes that file.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { errorText, visibleText } from '../../tools/index.js';
import { CliError, EXIT, withoutSecrets } from '../errors.js';
import { mcpSpecs } from '../session-host.js';

const say = (line: string) => void process.stderr.write(`${line}\n`);
const collect = (value: string, previous: string[]) => [...previous, value];

interface LoginFlags {
  mcp: string[];
  mcpConfig: string[];
}

/** The CLI's way to show a person a login: the url on stderr (the listener waits for the redirect). */
export function printAuthorizationUrl(server: string, url: string): Promise<void> {
  say(`ptc: MCP server "${visibleText(server)}" needs a login. Open this url in a browser and approve (waiting for the redirect to 127.0.0.1):\n${visibleText(url)}`);
  return Promise.resolve();
}

async function findServer(name: string, flags: LoginFlags) {
  const { isHttpServerSpec } = await import('../../mcp/index.js');
  const sources = flags.mcpConfig.length === 0 && flags.mcp.length === 0 && existsSync('mcp.json') ? { mcp: [], mcpConfig: ['mcp.json'] } : flags;
  let specs;
  try {
    specs = await mcpSpecs(sources);
  } catch (err) {
    throw new CliError(errorText(err));
  }
  const spec = specs.find((s) => s.name === name);
  if (!spec) {
    const known = specs.map((s) => s.name).join(', ');
    throw new CliError(`no MCP server named ${JSON.stringify(visibleText(name))} in ${sources.mcpConfig.length + sources.mcp.length === 0 ? 'the flags (give --mcp-config mcp.json or --mcp name=url)' : known ? `the configuration (it has: ${visibleText(known)})` : 'the configuration'}`);
  }
  if (!isHttpServerSpec(spec)) throw new CliError(`MCP server "${name}" is started with a command (stdio); only HTTP servers log in with OAuth`);
  return spec;
}

/** Registers `ptc mcp login` and `ptc mcp logout` under `mcp`. */
export function registerMcpLogin(mcp: Command): void {
  mcp
    .command('login')
    .argument('<name>', 'the server, as named in mcp.json or --mcp name=url')
    .description('Log in to an HTTP MCP server with OAuth (prints the authorization url; waits for the redirect to 127.0.0.1) and keep its tokens in a 0600 file.')
    .option('--mcp <command line|url>', 'a server, as ptc run takes it ("name=https://…"); repeatable', collect, [])
    .option('--mcp-config <mcp.json>', 'an mcp.json that names the server (default ./mcp.json); repeatable', collect, [])
    .action(async (name: string, flags: LoginFlags) => {
      const spec = await findServer(name, flags);
      const { defaultTokenPath, importMcpServers } = await import('../../mcp/index.js');
      let imported;
      try {
        imported = await importMcpServers([{ ...spec, oauth: spec.oauth ?? true }], { authorize: printAuthorizationUrl, startTimeoutMs: 30_000 });
      } catch (err) {
        throw new CliError(`login to MCP server "${name}" failed: ${withoutSecrets(errorText(err))}`, EXIT.failed);
      }
      const tools = imported.servers[0]?.toolCount ?? 0;
      await imported.close();
      const where = typeof spec.oauth === 'object' && spec.oauth.store ? 'its token store' : defaultTokenPath(name);
      process.stdout.write(`Logged in to MCP server "${name}" (${tools} tool(s)); tokens kept in ${where}\n`);
    });
  mcp
    .command('logout')
    .argument('<name>', 'the server')
    .description("Forget an MCP server's OAuth login: delete its token file (the registration and tokens).")
    .action(async (name: string) => {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new CliError(`server names match [A-Za-z0-9_-]{1,64}, got ${JSON.stringify(visibleText(name).slice(0, 80))}`);
      const { createFileTokenStore, defaultTokenPath } = await import('../../mcp/index.js');
      const path = defaultTokenPath(name);
      const had = existsSync(path);
      await createFileTokenStore(path).clear();
      process.stdout.write(had ? `Logged out of MCP server "${name}" (deleted ${path})\n` : `No login stored for MCP server "${name}" (${path} does not exist)\n`);
    });
}
