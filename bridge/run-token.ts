/**
 * The run token: 32 bytes from the CSPRNG, base64url. It is the capability that marks a child
 * call as belonging to a run; it lives only in the host (in the bridge and the origins of child
 * calls). Programs, runners, sandbox processes and logs never see it: logs carry `tokenIdOf`.
 */
import { randomBytes } from 'node:crypto';

/** A fresh, unguessable run token. */
export function createRunToken(): string {
  return randomBytes(32).toString('base64url');
}
