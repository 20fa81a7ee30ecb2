/**
 * Where an imported server's OAuth state lives between runs: its client registration, its tokens
 * and what discovery found. {@link McpTokenStore} is the interface (one store per server); the
 * default is a JSON file per server, mode 0600 in a 0700 directory,
 * `$XDG_CONFIG_HOME/ptc-runtime/mcp-tokens/<name>.json` (`~/.config/...` without it).
 *
 * The file records the server's url: state saved for another url (a name reused) is not used.
 * Writes go to a temporary file renamed into place, so a crash never leaves half a token.
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** What is kept for one server. Secret: tokens and a client secret; never printed. */
export interface McpOAuthState {
  /** The server's url the state is for. */
  readonly serverUrl: string;
  /** The client registration (dynamic or a metadata document url); pre-registered clients are not stored. */
  readonly client?: OAuthClientInformationMixed;
  readonly tokens?: OAuthTokens;
  /** When the access token expires (ms since the epoch), from `expires_in`. */
  readonly expiresAt?: number;
  readonly discovery?: OAuthDiscoveryState;
  /** The loopback port the registration's redirect url names. */
  readonly redirectPort?: number;
}

/** Keeps one server's {@link McpOAuthState}. */
export interface McpTokenStore {
  load(): Promise<McpOAuthState | undefined>;
  save(state: McpOAuthState): Promise<void>;
  clear(): Promise<void>;
}

/** The directory of the default token files. */
export function defaultTokenDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'ptc-runtime', 'mcp-tokens');
}

/** The default token file of server `name` (names are `[A-Za-z0-9_-]`, so safe as file names). */
export function defaultTokenPath(name: string, dir = defaultTokenDir()): string {
  return join(dir, `${name}.json`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A store in one JSON file, 0600 (see the file note). */
export function createFileTokenStore(path: string): McpTokenStore {
  return {
    async load() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new Error(`cannot read the token file ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        // Never quote the file: it holds tokens.
        throw new Error(`the token file ${path} is not valid JSON; delete it (ptc mcp logout) and log in again`);
      }
      if (!isObject(json) || typeof json.serverUrl !== 'string') throw new Error(`the token file ${path} is not a ptc token file; delete it (ptc mcp logout) and log in again`);
      return json as unknown as McpOAuthState;
    },
    async save(state) {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      await chmod(temp, 0o600);
      await rename(temp, path);
    },
    async clear() {
      await rm(path, { force: true });
    },
  };
}

/** A store in memory (tests, or a host that keeps nothing between runs). */
export function createMemoryTokenStore(initial?: McpOAuthState): McpTokenStore {
  let state = initial;
  return {
    async load() {
      return state;
    },
    async save(next) {
      state = next;
    },
    async clear() {
      state = undefined;
    },
  };
}
