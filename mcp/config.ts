/**
 * Which MCP servers to start: `--mcp "<command line>"` flags and `mcp.json` files in the common
 * format `{ "mcpServers": { "<name>": { "command", "args"?, "env"?, "cwd"? } } }`. Only stdio
 * servers (a command to run) are supported; an entry with a `url` is refused by name.
 *
 * Server names become tool-name prefixes (`<server>.<tool>`), so they are restricted to
 * `[A-Za-z0-9_-]{1,64}`. A name derived from a command line is the package or binary name
 * without `mcp-server-`/`server-`/`-mcp` (`npx -y @modelcontextprotocol/server-filesystem /tmp`
 * -> `filesystem`); write `name=command ...` to choose it. Duplicate names are an error.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { McpConfigError } from './errors.js';

/** One stdio MCP server to start. */
export interface McpServerSpec {
  /** Prefix of its tools' names: `<name>.<tool>`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the SDK's safe default environment (PATH, HOME, ...), never replacing it. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const entrySchema = z
  .object({
    command: z.string().min(1, 'command must be a non-empty string'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
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
  if (quote) throw new McpConfigError(source, `unterminated ${quote} quote in ${JSON.stringify(line)}`);
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

/** Parses one `--mcp` value: `command args...` or `name=command args...`. */
export function parseMcpCommandLine(line: string): McpServerSpec {
  const source = `--mcp ${JSON.stringify(line)}`;
  let text = line.trim();
  let name: string | undefined;
  const named = /^([^\s=]+)=(\S.*)$/s.exec(text);
  if (named) {
    // `name=command`: a first word with `=` is a name (a command is never spelled that way).
    if (!SERVER_NAME.test(named[1]!)) throw new McpConfigError(source, `server name ${JSON.stringify(named[1]!.slice(0, 80))} must match [A-Za-z0-9_-]{1,64} (it prefixes tool names)`);
    name = named[1]!;
    text = named[2]!;
  }
  const words = splitCommandLine(text, source);
  if (words.length === 0) throw new McpConfigError(source, 'is empty; give the command that starts the server');
  return { name: name ?? deriveServerName(words), command: words[0]!, args: words.slice(1) };
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
  if (!file.success) throw new McpConfigError(source, 'must be an object with "mcpServers": { "<name>": { "command": ..., "args": [...] } }');
  const specs: McpServerSpec[] = [];
  for (const [name, raw] of Object.entries(file.data.mcpServers)) {
    const where = `mcpServers.${name}`;
    if (!SERVER_NAME.test(name)) throw new McpConfigError(source, `${where}: server names must match [A-Za-z0-9_-]{1,64} (they prefix tool names)`);
    if (typeof raw === 'object' && raw !== null && 'url' in raw && !('command' in raw)) {
      throw new McpConfigError(source, `${where}: only stdio servers (with a "command") are supported, not a url`);
    }
    const entry = entrySchema.safeParse(raw);
    if (!entry.success) {
      const issue = entry.error.issues[0]!;
      throw new McpConfigError(source, `${where}.${issue.path.join('.') || '(entry)'}: ${issue.message}`);
    }
    const { command, args, env, cwd } = entry.data;
    specs.push({ name, command, args: args ?? [], ...(env ? { env } : {}), ...(cwd ? { cwd } : {}) });
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
    if (!SERVER_NAME.test(s.name)) throw new McpConfigError(`server ${JSON.stringify(s.name)}`, 'server names must match [A-Za-z0-9_-]{1,64}');
    if (seen.has(s.name)) throw new McpConfigError(`server "${s.name}"`, 'two servers have this name; name one explicitly (--mcp "other=command ...")');
    seen.add(s.name);
  }
}
