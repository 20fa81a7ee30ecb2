/**
 * `--agent-tokens-env NAME`: one bearer token per agent, from a JSON object `{ "<agent>": "<token>" }`
 * in that environment variable (never on the command line). A request runs for the agent whose
 * token it carries, so spills, durable runs and fairness key on the credential, not on the name
 * a client declares itself.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { McpHttpRequestInfo, McpPrincipal } from '../mcp/index.js';
import { CliError } from './errors.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Reads and checks the table; the returned function is `serveMcpHttp`'s `authenticate`. */
export function agentTokensFromEnv(name: string): (request: McpHttpRequestInfo) => McpPrincipal | undefined {
  const flag = `--agent-tokens-env ${name}`;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new CliError('--agent-tokens-env takes the name of an environment variable, not the tokens');
  const text = process.env[name];
  if (!text) throw new CliError(`${flag}: that environment variable is not set`);
  let table: unknown;
  try {
    table = JSON.parse(text);
  } catch {
    // The parser's message would quote the secret text.
    throw new CliError(`${flag}: the variable must hold a JSON object {"<agent>": "<token>", ...}`);
  }
  if (typeof table !== 'object' || table === null || Array.isArray(table)) throw new CliError(`${flag}: the variable must hold a JSON object {"<agent>": "<token>", ...}`);
  const entries = Object.entries(table as Record<string, unknown>);
  if (entries.length === 0) throw new CliError(`${flag}: the object names no agent`);
  const seen = new Set<string>();
  const tokens = entries.map(([agent, token]) => {
    if (!/^[\x21-\x7e]{1,100}$/.test(agent)) throw new CliError(`${flag}: agent names are 1-100 printable ASCII characters without spaces (${JSON.stringify(agent.slice(0, 40))} is not)`);
    if (typeof token !== 'string' || token.length < 16) throw new CliError(`${flag}: the token of agent ${agent} must be a string of at least 16 characters`);
    if (seen.has(token)) throw new CliError(`${flag}: two agents have the same token; each agent needs its own`);
    seen.add(token);
    return { agent, digest: digest(token) };
  });
  return (request) => {
    const header = request.headers.authorization;
    const presented = typeof header === 'string' ? /^Bearer (.+)$/.exec(header)?.[1] : undefined;
    if (presented === undefined) return undefined;
    const d = digest(presented);
    // Every entry is compared, so the time does not say which agent matched.
    let found: string | undefined;
    for (const t of tokens) if (timingSafeEqual(d, t.digest)) found = t.agent;
    return found === undefined ? undefined : { agent: found };
  };
}
