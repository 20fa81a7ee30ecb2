/**
 * The example policy, installed on every example host:
 *
 * - a pre-execute listener (waterfall): `expense_flag` is a write visible to other people, so it
 *   asks for approval (allowed once per call, never remembered);
 * - a guard (monotonic): `docs_read` of a confidential document is denied. No listener can
 *   overturn it, and it applies to direct model calls and PTC children alike.
 */
import { decision, type PreExecuteListener, type ToolGuard, type ToolHost, type Disposable } from '../tools/index.js';
import { DOCUMENTS } from './data/documents.js';

/** Asks before any `expense_flag` call. */
export const askBeforeFlagging: PreExecuteListener = (execution, current) =>
  execution.toolName === 'expense_flag' && current.type === 'allow' ? decision.ask('flagging an expense notifies the employee and their manager') : undefined;

/** Refuses to read confidential documents. */
export const confidentialDocumentGuard: ToolGuard = (execution) => {
  if (execution.toolName !== 'docs_read') return undefined;
  const args = execution.args as { docId?: unknown } | null;
  const doc = DOCUMENTS.find((d) => d.docId === args?.docId);
  return doc?.classification === 'confidential' ? `document ${doc.docId} is classified confidential; reading it needs a human with clearance` : undefined;
};

/** Installs the listener and the guard on a host; dispose the result to remove both. */
export function installExamplePolicy(host: ToolHost): Disposable {
  const parts = [host.hooks.preExecute(askBeforeFlagging), host.hooks.guard(confidentialDocumentGuard)];
  const dispose = () => parts.forEach((p) => p.dispose());
  return { dispose, [Symbol.dispose]: dispose };
}
