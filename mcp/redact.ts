/**
 * Secrets out of every message. MCP server specs carry credentials: `env` values, HTTP header
 * values, tokens in a URL, and people type `--mcp "GITHUB_TOKEN=ghp_… github-mcp"`. Values
 * known to be secret (env and header values) are never put in a message at all; free text that
 * may hold one (a command line, a URL, a server's stderr) goes through {@link redactSecrets}
 * first, which replaces what looks like a credential with `…`. It errs on the side of hiding:
 * a message with a hidden path segment is a lesser harm than a printed token.
 */

/** Prefixes of well-known credential formats (GitHub, GitLab, Slack, OpenAI/Anthropic-style, Stripe, AWS, Google). */
const TOKEN = /\b(?:gh[pousr]_[A-Za-z0-9_]{8,}|github_pat_[A-Za-z0-9_]{8,}|glpat-[A-Za-z0-9_-]{8,}|xox[abposr]-[A-Za-z0-9-]{8,}|sk-[A-Za-z0-9_-]{8,}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{20,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)/g;
/** `Bearer x`, `Basic x`, `token x` (an Authorization header's value). */
const AUTH_SCHEME = /\b(Bearer|Basic|token)\s+[^\s"',;]+/gi;
/** `NAME=value` / `NAME: value` where the name says it is secret. */
const SECRET_ASSIGNMENT = /\b([A-Za-z0-9_.-]*(?:token|secret|passw(?:or)?d|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth|credential|cookie|session)[A-Za-z0-9_.-]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|(?:(?:Bearer|Basic|token)\s+)?[^\s&"',;]+)/gi;
/** An environment-style assignment (`GITHUB_TOKEN=…`, `FOO_BAR=…`) at the start of a word. */
const ENV_ASSIGNMENT = /(^|[\s"'])([A-Z][A-Z0-9]*_[A-Z0-9_]*)=("[^"]*"|'[^']*'|[^\s"']+)/g;
/** `https://user:password@host`. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;
/** Query values of a URL (`?key=…&sig=…`). */
const URL_QUERY = /([?&][^\s=&#]+=)[^\s&#"']+/g;
/** A long run of token characters with letters and digits: most keys that have no known prefix. */
const LONG_TOKEN = /\b(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}\b/g;

/** `text` with anything that looks like a credential replaced by `…` (see the file note). */
export function redactSecrets(text: string): string {
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
