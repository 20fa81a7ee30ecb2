import { randomBytes } from 'node:crypto';

/**
 * A durable run's id: 16 random bytes, base64url. Never one starting with "-": operators pass
 * it to `ptc runs approve <runId>`, where it would read as an option (1 id in 64 did).
 */
export function newRunId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
