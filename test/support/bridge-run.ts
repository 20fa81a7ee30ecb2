/**
 * A PTC run without an isolate, for trace tests: a `run_code`-shaped tool whose "program" is a
 * host-side script driving the real bridge (token, dispatch, scheduling, revocation). It makes
 * parallel reads, a guard denial, an exclusive write and, after the run ended, a late call.
 */
import { openRunBridge } from '../../bridge/index.js';
import { mapCallableNames } from '../../codegen/index.js';
import { defineTool, type ToolHost } from '../../tools/index.js';

const limits = { wallMs: 10_000, maxCalls: 100, maxInFlight: 4, maxLogBytes: 10_000, maxArgBytes: 100_000, maxArgDepth: 32, maxArgNodes: 10_000 };

/** Registers `run_code_stub` on the host; its program is fixed. */
export function registerBridgeRun(host: ToolHost) {
  const tool = defineTool({
    name: 'run_code_stub',
    description: 'Runs a fixed host-side script through the PTC bridge (tests only).',
    parameters: {},
    execute: async (_args, exec) => {
      const names = mapCallableNames(host.tools().map((t) => t.name)).toolNames;
      const bridge = openRunBridge({ host, parentCallId: exec.callId, ...(exec.agent ? { agent: exec.agent } : {}), limits, toolNames: names });
      const call = (name: string, args: unknown) => bridge.guest.call(name, JSON.stringify(args));
      const reads = await Promise.all([
        call('team_list', { team: 'platform' }),
        call('docs_read', { docId: 'doc-01' }),
        call('docs_read', { docId: 'doc-07' }),
        call('budget_get', { employeeId: 'u-103' }),
      ]);
      const flag = await call('expense_flag', { expenseId: 'exp-0003', reason: 'looks high' });
      await call('docs_search', { query: 'incident' });
      await bridge.close({ outcome: 'ok' });
      const late = await call('team_get', { id: 'u-101' });
      return { ok: reads.map((r) => r.ok), flag: flag.ok, late: late.ok };
    },
  });
  host.register(tool);
}
