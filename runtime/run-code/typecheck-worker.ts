/**
 * The type-check thread (a `worker_threads` Worker; see typecheck-thread.ts): checks programs
 * with the codegen's {@link checkerFor}, one message at a time. Its heap is capped by the
 * Worker's resource limits and the host terminates it when a check runs too long, so a program
 * whose types explode cannot stall or exhaust the host.
 */
import { parentPort } from 'node:worker_threads';
import { checkerFor, normalizeProgram } from '../../codegen/index.js';
import type { TypecheckRequest, TypecheckReply } from './typecheck-thread.js';
import { errorText } from '../../tools/index.js';

const port = parentPort;
if (port === null) throw new Error('typecheck-worker must run in a worker thread');

port.on('message', (request: TypecheckRequest) => {
  let reply: TypecheckReply;
  try {
    if (request.normalize !== undefined) {
      port.postMessage({ id: request.id, normalized: normalizeProgram(request.normalize) } satisfies TypecheckReply);
      return;
    }
    const checker = checkerFor({ declarations: request.declarations, toolNames: new Map(request.toolNames) });
    if (request.code === undefined) {
      checker.warmup();
      reply = { id: request.id, warmed: true };
    } else reply = { id: request.id, result: checker.check(request.code) };
  } catch (err) {
    reply = { id: request.id, error: errorText(err) };
  }
  port.postMessage(reply);
});
