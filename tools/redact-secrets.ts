/**
 * Secrets out of every message. MCP server specs carry credentials: `env` values, HTTP header
 * values, tokens in a URL, and people type `--mcp "GITHUB_TOKEN=ghp_… github-mcp"`; a tools
 * module that fails to load may quote a token or a password in its error. Values known to be
 * secret (env and header values) are never put in a message at all, or, where text written by
 * someone else may quote them, are hidden by value ({@link RedactOptions.values}); free text that
 * may hold a credential (a command line, a URL, a server's stderr, a module's error) goes through
 * {@link redactSecrets}, which replaces what looks like one with `…`. It errs on the side of
 * hiding: a message with a hidden path segment is a lesser harm than a printed token.
 *
 * In tools/ (not mcp/) because the CLI redacts with it too, without loading the MCP SDK.
 */

/** Prefixes of well-known credential formats (GitHub, GitLab, Slack, OpenAI/Anthropic-style, Stripe, AWS, Google). */
const TOKEN = /\b(?:gh[pousr]_[A-Za-z0-9_]{8,}|github_pat_[A-Za-z0-9_]{8,}|glpat-[A-Za-z0-9_-]{8,}|xox[abposr]-[A-Za-z0-9-]{8,}|sk-[A-Za-z0-9_-]{8,}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{20,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)/g;
/** `Bearer x`, `Basic x`, `token x` (an Authorization header's value). */
const AUTH_SCHEME = /\b(Bearer|Basic|token)\s+[^\s"',;]+/gi;
/** Words in a name that say its value is secret. */
const SECRET_WORDS = String.raw`token|secret|passw(?:or)?d|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth|credential|cookie|session`;
/** `NAME=value` / `NAME: value` where the name says it is secret. */
const SECRET_ASSIGNMENT = new RegExp(String.raw`\b([A-Za-z0-9_.-]*(?:${SECRET_WORDS})[A-Za-z0-9_.-]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|(?:(?:Bearer|Basic|token)\s+)?[^\s&"',;]+)`, 'gi');
/** An environment-style assignment (`GITHUB_TOKEN=…`, `FOO_BAR=…`) at the start of a word. */
const ENV_ASSIGNMENT = /(^|[\s"'])([A-Z][A-Z0-9]*_[A-Z0-9_]*)=("[^"]*"|'[^']*'|[^\s"']+)/g;
/** `https://user:password@host`. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;
/** Query values of a URL (`?key=…&sig=…`). */
const URL_QUERY = /([?&][^\s=&#]+=)[^\s&#"']+/g;
/** A long run of token characters with letters and digits: most keys that have no known prefix. */
const LONG_TOKEN = /\b(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}\b/g;

/** Options of {@link redactSecrets}. */
export interface RedactOptions {
  /**
   * Values known to be secret (an environment's secret variables, header values): hidden
   * wherever they occur, whatever they look like. Values shorter than {@link MIN_KNOWN_SECRET_CHARS}
   * are left to the patterns: hiding every `1` would garble a message and hide nothing.
   */
  readonly values?: readonly string[];
}

/** Shortest known secret value hidden by value. */
export const MIN_KNOWN_SECRET_CHARS = 6;

/**
 * An environment variable whose name says its value is secret: a `_`-separated part of it is one
 * of these words (`GITHUB_TOKEN`, `OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `DB_PWD`). Stricter
 * than {@link SECRET_WORDS}, whose `session` and `auth` would take `XDG_SESSION_TYPE` or
 * `XAUTHORITY` (not secrets) and hide words and paths in every message; `PWD`, the shell's
 * working directory, is not a password.
 */
const SECRET_ENV_NAME = /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|COOKIE|AUTH)(?:_|$)/i;

/** The values of the variables in `env` whose names say they are secret (`GITHUB_TOKEN`, `DB_PASSWORD`, …). */
export function secretEnvValues(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env).flatMap(([name, value]) => (typeof value === 'string' && value.length >= MIN_KNOWN_SECRET_CHARS && name !== 'PWD' && SECRET_ENV_NAME.test(name) ? [value] : []));
}

/** `text` with `options.values` and anything that looks like a credential replaced by `…` (see the file note). */
export function redactSecrets(text: string, options: RedactOptions = {}): string {
  // Longest first, so a secret that contains another is hidden whole.
  const known = [...new Set(options.values ?? [])].filter((v) => v.length >= MIN_KNOWN_SECRET_CHARS).sort((a, b) => b.length - a.length);
  for (const value of known) text = text.split(value).join('…');
  return text
    .replace(URL_USERINFO, '$1…@')
    .replace(URL_QUERY, '$1…')
    .replace(SECRET_ASSIGNMENT, '$1$2…')
    .replace(AUTH_SCHEME, '$1 …')
    .replace(TOKEN, '…')
    .replace(ENV_ASSIGNMENT, '$1$2=…')
    .replace(LONG_TOKEN, '…');
}

/** A URL for messages: no user info, no query values, no fragment. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const query = [...u.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=…`).join('&');
    return `${u.protocol}//${u.username || u.password ? '…@' : ''}${u.host}${u.pathname}${query ? `?${query}` : ''}`;
  } catch {
    return redactSecrets(url);
  }
}
