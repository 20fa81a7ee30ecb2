/**
 * OAuth 2.1 for imported HTTP servers, on the MCP SDK's client auth (`auth()` in
 * `@modelcontextprotocol/sdk/client/auth.js`). The SDK does the protocol: protected resource and
 * authorization server metadata discovery (with the legacy fallbacks), dynamic client
 * registration or a client ID metadata document, PKCE, the token exchange, refresh on a 401 and
 * scope step-up on a 403 `insufficient_scope`. {@link McpOAuthProvider} is its
 * `OAuthClientProvider`: it keeps the state in a {@link McpTokenStore} (a 0600 file per server by
 * default), runs the loopback redirect listener while a person logs in, and lists every secret it
 * holds ({@link McpOAuthProvider.secretValues}) so messages can hide them by value.
 *
 * Grants: `authorization_code` (default; a person approves in a browser: `authorize(url)` shows
 * them the url, and the code comes back to `http://127.0.0.1:<port>/callback`) and
 * `client_credentials` (a service: `clientId` and `clientSecret`, no person). Without `authorize`
 * a login that needs a person fails with an {@link McpAuthError} saying to run `ptc mcp login`.
 *
 * Step-up: when a request is refused with 403 `insufficient_scope`, the SDK asks again with the
 * scope the server named; a refresh would keep the old scope, so while a step-up is pending the
 * refresh token is withheld from the SDK and it asks for a new authorization.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpAuthError } from './errors.js';
import { freeLoopbackPort, LOOPBACK_PATH, waitForRedirect } from './oauth-loopback.js';
import { createFileTokenStore, defaultTokenPath, type McpOAuthState, type McpTokenStore } from './oauth-store.js';

/** `oauth` of an HTTP server spec: `true` (discover everything, register dynamically) or these. */
export interface McpOAuthOptions {
  /** A pre-registered client; without it the client registers itself (or uses `clientMetadataUrl`). */
  readonly clientId?: string;
  /** The pre-registered client's secret (confidential clients, `client_credentials`). Secret: never printed. */
  readonly clientSecret?: string;
  /** Scope to ask for when neither the server's 401 nor its metadata names one. */
  readonly scope?: string;
  /** `authorization_code` (default: a person logs in) or `client_credentials` (a service; needs `clientId` and `clientSecret`). */
  readonly grant?: 'authorization_code' | 'client_credentials';
  /**
   * Shows a person the authorization url (opens a browser, prints it). The login completes when
   * the browser is redirected to the loopback listener; the promise only says the url was shown.
   */
  readonly authorize?: (url: string) => Promise<void>;
  /** Where the registration and tokens are kept (default: a 0600 file per server, see {@link defaultTokenPath}). */
  readonly store?: McpTokenStore;
  /** An https url of this client's metadata document (client ID metadata documents), used when the server supports them. */
  readonly clientMetadataUrl?: string;
  /** The loopback port of the redirect url (default: a free one, kept with the registration). */
  readonly redirectPort?: number;
  /** How long a login may wait for the redirect (default 5 minutes). */
  readonly authorizeTimeoutMs?: number;
}

/** What {@link createOAuthProvider} takes beside the server's own options. */
export interface OAuthProviderContext {
  /** The server's name (messages, the default token file). */
  readonly server: string;
  readonly url: string;
  /** Client name sent in a registration. */
  readonly clientName: string;
  /** Used when the server's options have no `authorize`. */
  readonly authorize?: (server: string, url: string) => Promise<void>;
  /** Directory of the default token files. */
  readonly tokenDir?: string;
}

const DEFAULT_AUTHORIZE_TIMEOUT_MS = 5 * 60_000;

/** The SDK's `OAuthClientProvider` for one server (see the file note). */
export class McpOAuthProvider implements OAuthClientProvider {
  readonly store: McpTokenStore;
  readonly grant: 'authorization_code' | 'client_credentials';
  #state: McpOAuthState;
  #port: number | undefined;
  #verifier: string | undefined;
  #oauthState: string | undefined;
  #code: string | undefined;
  #stepUpScope: string | undefined;
  /** Scopes step-ups asked for since the server last answered (see noteInsufficientScope). */
  readonly #askedInStepUp = new Set<string>();
  #waiting = false;
  readonly #seen = new Set<string>();

  private constructor(
    private readonly context: OAuthProviderContext,
    private readonly options: McpOAuthOptions,
    state: McpOAuthState | undefined,
  ) {
    this.store = options.store ?? createFileTokenStore(defaultTokenPath(context.server, context.tokenDir));
    this.grant = options.grant ?? 'authorization_code';
    // State saved for another url is not this server's.
    this.#state = state && state.serverUrl === context.url ? state : { serverUrl: context.url };
    this.#port = options.redirectPort ?? this.#state.redirectPort;
    this.#remember(options.clientSecret, this.#state.tokens?.access_token, this.#state.tokens?.refresh_token, (this.#state.client as { client_secret?: string } | undefined)?.client_secret);
  }

  /** Loads the stored state and picks the loopback port. */
  static async create(context: OAuthProviderContext, options: McpOAuthOptions): Promise<McpOAuthProvider> {
    const grant = options.grant ?? 'authorization_code';
    if (grant !== 'authorization_code' && grant !== 'client_credentials') throw new McpAuthError(context.server, `oauth.grant must be "authorization_code" or "client_credentials", got ${JSON.stringify(String(grant)).slice(0, 60)}`);
    if (grant === 'client_credentials' && (!options.clientId || !options.clientSecret)) {
      throw new McpAuthError(context.server, 'oauth.grant "client_credentials" needs oauth.clientId and oauth.clientSecret (a client registered for it)');
    }
    if (options.redirectPort !== undefined && (!Number.isInteger(options.redirectPort) || options.redirectPort < 1 || options.redirectPort > 65_535)) {
      throw new McpAuthError(context.server, 'oauth.redirectPort must be a whole number from 1 to 65535');
    }
    const store = options.store ?? createFileTokenStore(defaultTokenPath(context.server, context.tokenDir));
    let state: McpOAuthState | undefined;
    try {
      state = await store.load();
    } catch (err) {
      throw new McpAuthError(context.server, (err as Error).message);
    }
    const provider = new McpOAuthProvider(context, { ...options, store }, state);
    if (grant === 'authorization_code' && provider.#port === undefined) provider.#port = await freeLoopbackPort();
    return provider;
  }

  /** Every secret value this provider holds or held: hidden by value in messages. */
  secretValues(): string[] {
    return [...this.#seen];
  }

  /** True while a person is being waited for (start-up deadlines pause). */
  get waitingForPerson(): boolean {
    return this.#waiting;
  }

  /** Takes the authorization code a finished login left (once). */
  takeCode(): string | undefined {
    const code = this.#code;
    this.#code = undefined;
    return code;
  }

  /**
   * A request was refused (403 `insufficient_scope`) for want of `scope`: the next authorization
   * asks for the union of what the token has, what earlier step-ups asked for and `scope` (a
   * server may name only the scope it misses). Once only: when a step-up already asked for all
   * of `scope` and the server still refuses, throws an {@link McpAuthError} naming it.
   */
  noteInsufficientScope(scope: string | undefined): void {
    const granted = this.#state.tokens?.scope?.split(' ').filter(Boolean) ?? [];
    const wanted = (scope ?? '').split(' ').filter(Boolean);
    if (wanted.length === 0) return;
    if (wanted.every((s) => this.#askedInStepUp.has(s))) {
      this.#stepUpScope = undefined;
      throw new McpAuthError(
        this.context.server,
        `refused the request for want of scope "${wanted.join(' ')}" after it was authorized again asking for it: the authorization server did not grant it (the account or client may not be allowed it)`,
      );
    }
    const union = [...new Set([...granted, ...this.#askedInStepUp, ...wanted])];
    for (const s of union) this.#askedInStepUp.add(s);
    this.#stepUpScope = union.join(' ');
  }

  /** The server answered a request: a later refusal is a new step-up, not the same one again. */
  noteAnswered(): void {
    this.#askedInStepUp.clear();
  }

  #remember(...values: (string | undefined)[]): void {
    for (const v of values) if (typeof v === 'string' && v.length > 0) this.#seen.add(v);
  }

  async #save(next: Partial<McpOAuthState>): Promise<void> {
    this.#state = { ...this.#state, ...next, serverUrl: this.context.url };
    try {
      await this.store.save(this.#state);
    } catch (err) {
      throw new McpAuthError(this.context.server, `cannot save its OAuth state (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }

  get redirectUrl(): string | undefined {
    return this.grant === 'client_credentials' ? undefined : `http://127.0.0.1:${this.#port}${LOOPBACK_PATH}`;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.#stepUpScope ?? this.options.scope;
    const interactive = this.grant === 'authorization_code';
    return {
      client_name: this.context.clientName,
      redirect_uris: interactive ? [this.redirectUrl!] : [],
      grant_types: interactive ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
      response_types: interactive ? ['code'] : [],
      token_endpoint_auth_method: this.options.clientSecret ? 'client_secret_basic' : 'none',
      ...(scope ? { scope } : {}),
    };
  }

  state(): string {
    this.#oauthState = randomBytes(24).toString('base64url');
    return this.#oauthState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.options.clientId) return { client_id: this.options.clientId, ...(this.options.clientSecret ? { client_secret: this.options.clientSecret } : {}) };
    return this.#state.client;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    // A pre-registered client is configuration, not state.
    if (this.options.clientId) return;
    this.#remember((info as { client_secret?: string }).client_secret, (info as { registration_access_token?: string }).registration_access_token);
    await this.#save({ client: info, ...(this.#port !== undefined && this.grant === 'authorization_code' ? { redirectPort: this.#port } : {}) });
  }

  tokens(): OAuthTokens | undefined {
    const tokens = this.#state.tokens;
    // A refresh keeps the old scope: withheld while a step-up is pending, so the SDK authorizes again.
    if (tokens && this.#stepUpScope !== undefined && tokens.refresh_token) {
      const { refresh_token: _dropped, ...rest } = tokens;
      return rest as OAuthTokens;
    }
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#remember(tokens.access_token, tokens.refresh_token, tokens.id_token);
    // A refresh answer may leave out the refresh token: the old one stays good.
    const refresh = tokens.refresh_token ?? (this.#stepUpScope === undefined ? this.#state.tokens?.refresh_token : undefined);
    this.#stepUpScope = undefined;
    await this.#save({
      tokens: { ...tokens, ...(refresh ? { refresh_token: refresh } : {}) },
      ...(typeof tokens.expires_in === 'number' ? { expiresAt: Date.now() + tokens.expires_in * 1000 } : {}),
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const { server } = this.context;
    const show = this.options.authorize ?? (this.context.authorize ? (url: string) => this.context.authorize!(server, url) : undefined);
    if (!show) {
      throw new McpAuthError(server, `needs a login: run "ptc mcp login ${server}" (or give oauth.authorize to show the authorization url to a person)`);
    }
    // The SDK asks for the scope the server's 403 named; a step-up asks for the union (see noteInsufficientScope).
    if (this.#stepUpScope !== undefined) authorizationUrl.searchParams.set('scope', this.#stepUpScope);
    const state = this.#oauthState ?? authorizationUrl.searchParams.get('state') ?? '';
    this.#waiting = true;
    const wait = await waitForRedirect({ server, port: this.#port!, state, timeoutMs: this.options.authorizeTimeoutMs ?? DEFAULT_AUTHORIZE_TIMEOUT_MS });
    try {
      await show(authorizationUrl.href);
      this.#code = await wait.code;
      this.#remember(this.#code);
    } finally {
      this.#waiting = false;
      await wait.close();
    }
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#remember(codeVerifier);
    this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new McpAuthError(this.context.server, 'no login is in progress (no PKCE code verifier)');
    return this.#verifier;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.grant !== 'client_credentials') return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.#verifier = undefined;
      return;
    }
    const next: McpOAuthState = {
      serverUrl: this.context.url,
      ...(scope !== 'all' && scope !== 'client' && this.#state.client ? { client: this.#state.client } : {}),
      ...(scope !== 'all' && scope !== 'tokens' && this.#state.tokens ? { tokens: this.#state.tokens } : {}),
      ...(scope !== 'all' && scope !== 'discovery' && this.#state.discovery ? { discovery: this.#state.discovery } : {}),
      ...(this.#state.redirectPort !== undefined && scope !== 'all' && scope !== 'client' ? { redirectPort: this.#state.redirectPort } : {}),
    };
    this.#state = next;
    await this.store.save(next).catch(() => {});
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#state.discovery;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.#save({ discovery: state });
  }
}

/** The provider for a server whose spec has `oauth`. */
export function createOAuthProvider(context: OAuthProviderContext, oauth: true | McpOAuthOptions): Promise<McpOAuthProvider> {
  return McpOAuthProvider.create(context, oauth === true ? {} : oauth);
}
