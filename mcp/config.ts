/**
 * Which MCP servers to use: `--mcp "<command line>"` or `--mcp <url>` flags and `mcp.json` files
 * in the common format, as Claude Code and Cursor write them:
 * `{ "mcpServers": { "<name>": { "command", "args"?, "env"?, "cwd"? } | { "url", "type"?, "headers"? } } }`.
 * An entry with a `url` is a Streamable HTTP server (`"type": "sse"`: the older SSE transport
 * only). `${NAME}` and `${NAME:-default}` in a command, its args, env values, a url and header
 * values are read from the environment (as Claude Code does), so a token need not be in the file;
 * a variable that is not set is an error naming it.
 *
 * Server names become tool-name prefixes (`<server>.<tool>`), so they are restricted to
 * `[A-Za-z0-9_-]{1,64}`. A name derived from a command line is the package or binary name
 * without `mcp-server-`/`server-`/`-mcp` (`npx -y @modelcontextprotocol/server-filesystem /tmp`
 * -> `filesystem`), from a url its host (`https://mcp.linear.app/mcp` -> `linear`); write
 * `name=command ...` or `name=https://...` to choose it. Duplicate names are an error.
 *
 * Secrets: env and header values never appear in an error; other text quoted in one (a command
 * line, a url) goes through {@link redactSecrets}. `--mcp "GITHUB_TOKEN=ghp_… cmd"` (an
 * environment assignment, as a shell would read it) is refused without echoing the value:
 * a `NAME=` prefix in capitals is never taken for a server name.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { McpConfigError } from './errors.js';
import { redactSecrets, redactUrl } from '../tools/index.js';
import type { McpOAuthOptions } from './oauth.js';

/** A stdio MCP server to start: a command, as `--mcp "<command line>"` or an mcp.json `command` entry. */
export interface McpStdioServerSpec {
  /** Prefix of its tools' names: `<name>.<tool>`. */
  readonly name: string;
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the SDK's safe default environment (PATH, HOME, ...), never replacing it. Secret: never printed. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A remote MCP server over Streamable HTTP (or the older SSE transport). */
export interface McpHttpServerSpec {
  /** Prefix of its tools' names: `<name>.<tool>`. */
  readonly name: string;
  /** `http://` or `https://` endpoint, e.g. `https://mcp.example.com/mcp`. */
  readonly url: string;
  /** Sent with every request (`Authorization: Bearer …`). Secret: never in traces, logs or errors. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * `'streamable-http'` (default): the current transport, falling back to the older SSE
   * transport when the server refuses it with a 4xx (as the SDK advises); `'sse'`: SSE only.
   */
  readonly transport?: 'streamable-http' | 'sse';
  /**
   * OAuth 2.1 (see oauth.ts): `true` discovers the authorization server and registers a client;
   * an object names a pre-registered client, a scope, the grant, how a person is shown the login.
   * Tokens are kept in a 0600 file per server, never in traces, logs or errors.
   */
  readonly oauth?: true | McpOAuthOptions;
}

/** One MCP server to import: stdio (`command`) or HTTP (`url`). */
export type McpServerSpec = McpStdioServerSpec | McpHttpServerSpec;

/** Whether a spec names an HTTP server. */
export function isHttpServerSpec(spec: McpServerSpec): spec is McpHttpServerSpec {
  return typeof (spec as McpHttpServerSpec).url === 'string';
}

/** How a server is named in messages: its command line or its url, secrets redacted. */
export function describeServer(spec: McpServerSpec): string {
  return isHttpServerSpec(spec) ? redactUrl(spec.url) : redactSecrets([spec.command, ...(spec.args ?? [])].join(' '));
}

const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** `GITHUB_TOKEN`, `API_KEY`: how an environment variable is spelled, never taken for a server name on `--mcp`. */
const ENV_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]*)+$|^[A-Z]{2,}[A-Z0-9]*$/;
const HTTP_URL = /^https?:\/\//i;

const stdioEntrySchema = z
  .object({
    command: z.string().min(1, 'command must be a non-empty string'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
  })
  .loose();
const httpEntrySchema = z
  .object({
    url: z.string().regex(HTTP_URL, 'url must start with http:// or https://'),
    type: z.enum(['http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    oauth: z
      .union([
        z.boolean(),
        z
          .object({
            clientId: z.string().min(1).optional(),
            clientSecret: z.string().min(1).optional(),
            scope: z.string().optional(),
            grant: z.enum(['authorization_code', 'client_credentials']).optional(),
            clientMetadataUrl: z.string().regex(/^https:\/\//, 'clientMetadataUrl must be an https:// url').optional(),
            redirectPort: z.number().int().min(1).max(65_535).optional(),
          })
          .strict(),
      ])
      .optional(),
  })
  .loose();
const fileSchema = z.object({ mcpServers: z.record(z.string(), z.unknown()) }).loose();

/** Splits a command line like a POSIX shell does for words: quotes and backslashes, no expansion. */
export function splitCommandLine(line: string, source = '--mcp'): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new McpConfigError(source, `unterminated ${quote} quote in ${JSON.stringify(redactSecrets(line).slice(0, 200))}`);
  if (inWord) words.push(word);
  return words;
}

const LAUNCHERS = new Set(['npx', 'node', 'uvx', 'uv', 'bunx', 'bun', 'pnpm', 'dlx', 'exec', 'run', 'deno', 'python', 'python3', 'docker', 'tsx']);

/** The server name a command line gets when none is given. */
export function deriveServerName(words: readonly string[]): string {
  const main = words.find((w, i) => !w.startsWith('-') && !(LAUNCHERS.has(w.split('/').pop()!) && i < words.length - 1)) ?? words[0] ?? 'mcp';
  let base = main.split(/[\\/]/).pop() ?? main;
  base = base.replace(/@[^@]*$/, '').replace(/\.(m?js|cjs|ts|py|exe)$/, '');
  base = base.replace(/^(mcp-server-|server-|mcp-)/, '').replace(/(-mcp-server|-mcp|-server)$/, '');
  base = base.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64);
  return base || 'mcp';
}

/** The server name a url gets when none is given: its host's distinctive label (`mcp.linear.app` -> `linear`). */
export function deriveServerNameFromUrl(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return 'mcp';
  }
  if (/^[\d.]+$|^\[|^localhost$/i.test(host)) return 'mcp';
  const labels = host.split('.').slice(0, -1).filter((l) => !/^(mcp|www|api|server|servers)$/i.test(l));
  const base = (labels[labels.length - 1] ?? labels[0] ?? 'mcp').replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64);
  return base || 'mcp';
}

/** `${NAME}` / `${NAME:-default}` from the environment; a variable that is not set is an error naming it (never a value). */
export function expandEnv(text: string, source: string, env: NodeJS.ProcessEnv = process.env): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new McpConfigError(source, `environment variable ${name} is not set (it is used as \${${name}})`);
  });
}

/** `--header "Name: value"` and `--oauth` words after a url on `--mcp`. */
function parseHeaderWords(words: readonly string[], source: string): { headers: Record<string, string>; oauth: boolean } {
  const headers: Record<string, string> = {};
  let oauth = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--oauth') {
      oauth = true;
      continue;
    }
    if (word !== '--header' && word !== '-H') throw new McpConfigError(source, `after a url only --header "Name: value" or --oauth may follow, not ${JSON.stringify(redactSecrets(word).slice(0, 80))}`);
    const header = words[++i];
    const colon = header?.indexOf(':') ?? -1;
    if (!header || colon <= 0) throw new McpConfigError(source, '--header takes "Name: value"');
    const name = header.slice(0, colon).trim();
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw new McpConfigError(source, `--header ${JSON.stringify(name.slice(0, 80))} is not a header name`);
    Object.defineProperty(headers, name, { value: expandEnv(header.slice(colon + 1).trim(), `${source} --header ${name}`), enumerable: true, writable: true, configurable: true });
  }
  return { headers, oauth };
}

/**
 * Parses one `--mcp` value: `command args...`, `name=command args...`, or a url
 * (`https://host/mcp`, `name=https://host/mcp --header "Authorization: Bearer \${TOKEN}"`, the
 * header's `\${NAME}` read from the environment, so the token is not on the command line;
 * `name=https://host/mcp --oauth`: log in with OAuth).
 */
export function parseMcpCommandLine(line: string): McpServerSpec {
  const source = `--mcp ${JSON.stringify(redactSecrets(line).slice(0, 200))}`;
  let text = line.trim();
  let name: string | undefined;
  const named = /^([^\s=]+)=(\S.*)$/s.exec(text);
  if (named) {
    const prefix = named[1]!;
    // `GITHUB_TOKEN=ghp_… cmd` is a shell's environment assignment, not `name=command`: taking it
    // for one would run the token as a command and print it in the error.
    if (ENV_NAME.test(prefix)) {
      throw new McpConfigError(
        `--mcp "${prefix}=…"`,
        `${prefix}=… looks like an environment variable assignment, which --mcp does not take (the value is not shown). Export the variable before running ptc, or use an mcp.json "env"; to name a server, write name=command in lower case`,
      );
    }
    // `name=command`: a first word with `=` is a name (a command is never spelled that way).
    if (!SERVER_NAME.test(prefix)) throw new McpConfigError(source, `server name ${JSON.stringify(redactSecrets(prefix).slice(0, 80))} must match [A-Za-z0-9_-]{1,64} (it prefixes tool names)`);
    name = prefix;
    text = named[2]!;
  }
  const words = splitCommandLine(text, source);
  if (words.length === 0) throw new McpConfigError(source, 'is empty; give the command that starts the server, or its url');
  if (HTTP_URL.test(words[0]!)) {
    const url = words[0]!;
    if (!URL.canParse(url)) throw new McpConfigError(source, 'is not a valid url');
    const { headers, oauth } = parseHeaderWords(words.slice(1), source);
    return { name: name ?? deriveServerNameFromUrl(url), url, ...(Object.keys(headers).length > 0 ? { headers } : {}), ...(oauth ? { oauth: true as const } : {}) };
  }
  return { name: name ?? deriveServerName(words), command: words[0]!, args: words.slice(1) };
}

/** An mcp.json `oauth` entry as spec options; `${NAME}` in its strings read from the environment (a client secret need not be in the file). */
function oauthFromJson(oauth: z.infer<typeof httpEntrySchema>['oauth'], expand: (field: string, value: string) => string): true | McpOAuthOptions | undefined {
  if (oauth === undefined || oauth === false) return undefined;
  if (oauth === true) return true;
  const out: { -readonly [K in keyof McpOAuthOptions]: McpOAuthOptions[K] } = {};
  if (oauth.clientId !== undefined) out.clientId = expand('clientId', oauth.clientId);
  if (oauth.clientSecret !== undefined) out.clientSecret = expand('clientSecret', oauth.clientSecret);
  if (oauth.scope !== undefined) out.scope = expand('scope', oauth.scope);
  if (oauth.grant !== undefined) out.grant = oauth.grant;
  if (oauth.clientMetadataUrl !== undefined) out.clientMetadataUrl = oauth.clientMetadataUrl;
  if (oauth.redirectPort !== undefined) out.redirectPort = oauth.redirectPort;
  return out;
}

function expandRecord(record: Record<string, string> | undefined, where: string, source: string): Record<string, string> | undefined {
  if (!record) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record)) {
    Object.defineProperty(out, key, { value: expandEnv(value, `${source}: ${where}.${key}`), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Parses `mcp.json` text (`source` names it in errors). */
export function parseMcpConfig(text: string, source = 'mcp.json'): McpServerSpec[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(source, `is not valid JSON (${(err as Error).message})`);
  }
  const file = fileSchema.safeParse(json);
  if (!file.success) throw new McpConfigError(source, 'must be an object with "mcpServers": { "<name>": { "command": ..., "args": [...] } or { "url": ... } }');
  const specs: McpServerSpec[] = [];
  for (const [name, raw] of Object.entries(file.data.mcpServers)) {
    const where = `mcpServers.${name}`;
    if (!SERVER_NAME.test(name)) throw new McpConfigError(source, `${where}: server names must match [A-Za-z0-9_-]{1,64} (they prefix tool names)`);
    const isHttp = typeof raw === 'object' && raw !== null && 'url' in raw && !('command' in raw);
    const entry = (isHttp ? httpEntrySchema : stdioEntrySchema).safeParse(raw);
    if (!entry.success) {
      const issue = entry.error.issues[0]!;
      throw new McpConfigError(source, `${where}.${issue.path.join('.') || '(entry)'}: ${issue.message}`);
    }
    const at = (field: string) => `${source}: ${where}.${field}`;
    if (isHttp) {
      const { url, type, headers, oauth } = entry.data as z.infer<typeof httpEntrySchema>;
      const expanded = expandRecord(headers, `${where}.headers`, source);
      const oauthSpec = oauthFromJson(oauth, (field, value) => expandEnv(value, at(`oauth.${field}`)));
      specs.push({
        name,
        url: expandEnv(url, at('url')),
        ...(expanded ? { headers: expanded } : {}),
        ...(type === 'sse' ? { transport: 'sse' as const } : {}),
        ...(oauthSpec ? { oauth: oauthSpec } : {}),
      });
    } else {
      const { command, args, env, cwd } = entry.data as z.infer<typeof stdioEntrySchema>;
      const expandedEnv = expandRecord(env, `${where}.env`, source);
      specs.push({
        name,
        command: expandEnv(command, at('command')),
        args: (args ?? []).map((a, i) => expandEnv(a, at(`args.${i}`))),
        ...(expandedEnv ? { env: expandedEnv } : {}),
        ...(cwd ? { cwd: expandEnv(cwd, at('cwd')) } : {}),
      });
    }
  }
  return specs;
}

/** Reads and parses an `mcp.json` file. */
export function readMcpConfig(path: string): McpServerSpec[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new McpConfigError(path, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parseMcpConfig(text, path);
}

/** Checks names are valid and unique across all sources. */
export function checkServerSpecs(specs: readonly McpServerSpec[]): void {
  const seen = new Set<string>();
  for (const s of specs) {
    if (typeof s.name !== 'string' || !SERVER_NAME.test(s.name)) throw new McpConfigError(`server ${JSON.stringify(redactSecrets(String(s.name)).slice(0, 80))}`, 'server names must match [A-Za-z0-9_-]{1,64}');
    if (isHttpServerSpec(s) ? !HTTP_URL.test(s.url) || !URL.canParse(s.url) : typeof s.command !== 'string' || s.command === '') {
      throw new McpConfigError(`server "${s.name}"`, isHttpServerSpec(s) ? 'url must be an http:// or https:// url' : 'needs a command (stdio) or a url (HTTP)');
    }
    if (seen.has(s.name)) throw new McpConfigError(`server "${s.name}"`, 'two servers have this name; name one explicitly (--mcp "other=command ...")');
    seen.add(s.name);
  }
}
