/**
 * Resume tokens: `ptcr1.<payload>.<mac>`, the payload base64url JSON of what the token is bound
 * to (run, agent, program hash, tool-set fingerprint, expiry), the MAC HMAC-SHA256 of the payload
 * text under the fleet's current key (previous keys still verify, so keys rotate without
 * stranding suspended runs). The token carries no data of the run: the journal stays in the
 * store. Verification is constant-time and every failure is the same `undefined`, so a caller
 * learns nothing from why a token was refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a token is bound to. */
export interface TokenClaims {
  readonly runId: string;
  readonly agentId: string | null;
  readonly programHash: string;
  readonly toolsetHash: string;
  /** Issued and expiry times, ms since the epoch. */
  readonly iat: number;
  readonly exp: number;
}

const PREFIX = 'ptcr1.';
/** Longest token read (a longer string is refused before any work). */
const MAX_TOKEN_CHARS = 2048;

/** Signs `claims` with `key`. */
export function signResumeToken(claims: TokenClaims, key: Uint8Array): string {
  const payload = Buffer.from(JSON.stringify({ ...claims, nonce: randomBytes(12).toString('base64url') }), 'utf8').toString('base64url');
  return `${PREFIX}${payload}.${mac(payload, key)}`;
}

/** The claims of a token that one of `keys` signed, or undefined for anything else. Never throws. */
export function verifyResumeToken(token: unknown, keys: readonly Uint8Array[]): TokenClaims | undefined {
  try {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS || !token.startsWith(PREFIX)) return undefined;
    const rest = token.slice(PREFIX.length);
    const dot = rest.indexOf('.');
    if (dot <= 0 || rest.indexOf('.', dot + 1) !== -1) return undefined;
    const payload = rest.slice(0, dot);
    const given = Buffer.from(rest.slice(dot + 1), 'base64url');
    let valid = false;
    for (const key of keys) {
      const expected = Buffer.from(mac(payload, key), 'base64url');
      // Every key is tried (no early exit), each compare constant-time.
      if (given.length === expected.length && timingSafeEqual(given, expected)) valid = true;
    }
    if (!valid) return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { runId, agentId, programHash, toolsetHash, iat, exp } = claims;
    if (typeof runId !== 'string' || (agentId !== null && typeof agentId !== 'string') || typeof programHash !== 'string' || typeof toolsetHash !== 'string') return undefined;
    if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
    return { runId, agentId, programHash, toolsetHash, iat, exp };
  } catch {
    return undefined;
  }
}

function mac(payload: string, key: Uint8Array): string {
  return createHmac('sha256', key).update(`ptc-runtime resume token v1\n${payload}`).digest('base64url');
}
