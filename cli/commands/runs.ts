/**
 * `ptc runs list|show|approve|deny --store file:DIR` (or `--store-env NAME`, the Redis the
 * replicas of `ptc mcp serve --store-env NAME --durable-key-env KEY` share): an operator's view of durable runs that
 * wait for a person (docs/run-code.md "Durable runs"), and their answer from a terminal.
 *
 * `list` and `show` read the store only: what each run waits for (tool, arguments, reason,
 * expiry), and for `show` the calls its journal holds, never the results the tools returned
 * (the journal holds them; `--results` prints them) and never a token. `approve` and `deny`
 * resume the run in this process with the same tools module the server runs (`--tools`, `--mcp`:
 * the tool set must be the one the program was checked against, or the resume is refused and
 * nothing runs), a new resume token minted with the key from `--key-env` (only a holder of the
 * key can), and the operator's decision for every pending approval, recorded as `by`.
 */
import type { Command } from 'commander';
import { visibleText, type JsonValue } from '../../tools/index.js';
import type { TraceHeadStore } from '../../runtime/index.js';
import { CliError, EXIT } from '../errors.js';
import { buildSessionHost, parseIsolation, parseOsSandbox, traceFlags, type CliIsolation } from '../session-host.js';
import { runStoreFromFlags, secretFromEnv, type DurableSettings } from '../store-spec.js';
import { reserveStdout } from '../stdout-guard.js';

const collect = (value: string, previous: string[]) => [...previous, value];
const STATUSES = ['active', 'suspended', 'completed', 'failed', 'expired', 'all'] as const;
type StatusFlag = (typeof STATUSES)[number];

function parseStatus(value: string): StatusFlag {
  if ((STATUSES as readonly string[]).includes(value)) return value as StatusFlag;
  throw new CliError(`--status must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(value.slice(0, 40))}`);
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const oneLine = (text: string, max = 200) => visibleText(text).replace(/\s+/g, ' ').slice(0, max);

interface StoreFlags {
  store?: string;
  storeEnv?: string;
}

const STORE_HELP = 'the run store (the one `ptc mcp serve --store` writes)';
const STORE_ENV_HELP = 'or: the Redis run store shared by replicas, its redis:// URL in this environment variable (their --store-env)';

interface ResumeFlags extends StoreFlags {
  keyEnv: string;
  trace?: string;
  traceKeyEnv?: string;
  tools?: string;
  mcp: string[];
  mcpConfig: string[];
  isolation: CliIsolation;
  osSandbox: 'auto' | 'require' | 'off';
  by?: string;
}

/** Registers `ptc runs`. */
export function registerRuns(program: Command): void {
  const runs = program.command('runs').description('Durable runs that wait for a person: list them, show one, approve or deny what it waits for.');
  runs
    .command('list')
    .description('List the runs of a store with what each waits for.')
    .option('--store <file:DIR>', STORE_HELP)
    .option('--store-env <NAME>', STORE_ENV_HELP)
    .option('--status <status>', `${STATUSES.join(' | ')} (default suspended)`, parseStatus, 'suspended')
    .action(async (flags: StoreFlags & { status: StatusFlag }) => {
      const opened = await runStoreFromFlags(flags);
      const list = await opened.store.list({ ...(flags.status === 'all' ? {} : { status: flags.status }), limit: 1000 }).finally(() => opened.close());
      if (list.length === 0) process.stdout.write(`no ${flags.status === 'all' ? '' : `${flags.status} `}runs in ${opened.describe}\n`);
      for (const { meta, status } of list) {
        process.stdout.write(`${meta.runId}  ${status}  agent ${meta.agentId === null ? '(none)' : oneLine(meta.agentId, 60)}  created ${when(meta.createdAt)}${status === 'suspended' ? `  expires ${when(meta.expiresAt)}` : ''}\n`);
        for (const p of meta.pending) process.stdout.write(`    waits for ${oneLine(p.toolName, 80)} ${oneLine(p.argsJson)}: ${oneLine(p.reason)}  [approval ${p.approvalId}]\n`);
      }
    });
  runs
    .command('show')
    .description('Show one run: its record, what it waits for, and the calls its journal holds (not their results unless --results).')
    .argument('<runId>')
    .option('--store <file:DIR>', STORE_HELP)
    .option('--store-env <NAME>', STORE_ENV_HELP)
    .option('--results', 'also print what each call returned (the journal holds tool results)')
    .action(async (runId: string, flags: StoreFlags & { results?: boolean }) => {
      const opened = await runStoreFromFlags(flags);
      const stored = await opened.store.load(runId).finally(() => opened.close());
      if (stored === undefined) throw new CliError(`no run ${JSON.stringify(oneLine(runId, 130))} in ${opened.describe}`, EXIT.failed);
      const { meta } = stored;
      const out = (line: string) => process.stdout.write(`${line}\n`);
      out(`run ${meta.runId}: ${stored.status}`);
      out(`  agent ${meta.agentId === null ? '(none)' : oneLine(meta.agentId, 60)}, call ${oneLine(meta.parentCallId, 100)}, created ${when(meta.createdAt)}, expires ${when(meta.expiresAt)}`);
      for (const p of meta.pending) out(`  waits for ${oneLine(p.toolName, 80)} ${oneLine(p.argsJson)}: ${oneLine(p.reason)}  [approval ${p.approvalId}]`);
      const { decodeJournalEntry } = await import('../../runtime/index.js');
      let sealed = 0;
      for (const text of stored.entries) {
        let entry;
        try {
          entry = decodeJournalEntry(text);
        } catch {
          sealed++;
          continue;
        }
        if (entry.k === 'call') out(`  call #${entry.seq} ${oneLine(entry.name, 80)}`);
        else if (entry.k === 'settle') out(`    #${entry.seq} ${entry.status}${flags.results ? `: ${oneLine(entry.ok ? entry.text : entry.message, 400)}` : ''}`);
        else if (entry.k === 'defer') out(`    #${entry.seq} deferred for a person [approval ${entry.approvalId}]`);
        else if (entry.k === 'suspend') out(`  suspended at ${when(entry.at)}`);
        else if (entry.k === 'resume') out(`  resumed at ${when(entry.at)}: ${entry.decisions.map((d) => `${d.approvalId} ${d.decision}${d.by ? ` by ${oneLine(d.by, 80)}` : ''}`).join(', ')}`);
        else if (entry.k === 'end') out(`  ended at ${when(entry.at)}: ${entry.isError ? `failed: ${oneLine(entry.message ?? '')}` : flags.results ? `returned ${oneLine(JSON.stringify(entry.value ?? null), 400)}` : 'returned'}`);
      }
      if (sealed > 0) out(`  (${sealed} journal entries are sealed with an encryption key; not shown)`);
    });
  for (const decision of ['approve', 'deny'] as const) {
    runs
      .command(decision)
      .description(`${decision === 'approve' ? 'Allow' : 'Deny'} what a suspended run waits for and resume it here, with the tools the server runs; prints the program's result or a new suspension.`)
      .argument('<runId>')
      .option('--store <file:DIR>', STORE_HELP)
      .option('--store-env <NAME>', STORE_ENV_HELP)
      .requiredOption('--key-env <NAME>', 'the environment variable holding the key the server signs resume tokens with (its --durable-key-env)')
      .option('--tools <module>', 'the tools module the server runs (default: the bundled example tools)')
      .option('--mcp <command line|url>', 'an MCP server the server imports, as it imports it; repeatable', collect, [])
      .option('--mcp-config <mcp.json>', 'the mcp.json the server imports; repeatable', collect, [])
      .option('--isolation <mode>', 'process, strict or isolate', parseIsolation, 'process')
      .option('--os-sandbox <mode>', 'auto, require or off', parseOsSandbox, 'auto')
      .option('--by <name>', 'who decided, recorded in the journal and the trace (default operator:$USER)')
      .option('--trace <file.jsonl>', "write the resumed run's hash-chained trace (a new file); its ptc/run-resumed links to the chain the run was suspended in")
      .option('--trace-key-env <NAME>', 'key the trace (HMAC-SHA256) with the secret in this environment variable')
      .action(async (runId: string, flags: ResumeFlags) => {
        const stdout = reserveStdout();
        try {
          await resume(runId, decision === 'approve' ? 'allow-once' : 'deny', flags, (line) => stdout.out.write(`${line}\n`));
        } finally {
          stdout.release();
        }
      });
  }
}

async function resume(runId: string, decision: 'allow-once' | 'deny', flags: ResumeFlags, print: (line: string) => void): Promise<void> {
  // The key is checked before the store is opened; the store is closed on every way out.
  const current = secretFromEnv(flags.keyEnv, '--key-env');
  const trace = traceFlags(flags);
  const opened = await runStoreFromFlags(flags);
  try {
    await resumeIn(runId, decision, flags, { store: opened.store, describe: opened.describe, keys: { current } }, trace, print, opened.redis?.traceHeads);
  } finally {
    await opened.close();
  }
}

async function resumeIn(
  runId: string,
  decision: 'allow-once' | 'deny',
  flags: ResumeFlags,
  durable: DurableSettings,
  trace: ReturnType<typeof traceFlags>,
  print: (line: string) => void,
  traceHeads: TraceHeadStore | undefined,
): Promise<void> {
  const stored = await durable.store.load(runId);
  if (stored === undefined || stored.status !== 'suspended') {
    throw new CliError(stored === undefined ? `no run ${JSON.stringify(oneLine(runId, 130))} in ${durable.describe}` : `run ${runId} is ${stored.status}, not waiting for a person`, EXIT.failed);
  }
  const session = await buildSessionHost({
    ...(flags.tools ? { tools: flags.tools } : {}),
    approve: 'no',
    isolation: flags.isolation,
    osSandbox: flags.osSandbox,
    mcp: flags.mcp,
    mcpConfig: flags.mcpConfig,
    ...trace,
    durable,
  }, traceHeads ? { traceHeads } : {});
  try {
    const { RunResumeError } = await import('../../runtime/index.js');
    const by = (flags.by ?? `operator:${process.env.USER ?? process.env.LOGNAME ?? 'unknown'}`).slice(0, 200);
    const decisions = stored.meta.pending.map((p) => ({ approvalId: p.approvalId, decision, by }));
    let result;
    try {
      const token = await session.runCode.issueResumeToken(runId);
      result = await session.runCode.resume({ token, decisions, ...(stored.meta.agentId !== null ? { agent: { id: stored.meta.agentId } } : {}) });
    } catch (err) {
      if (RunResumeError.isInstance(err)) throw new CliError((err as Error).message, EXIT.failed);
      throw err;
    }
    const value = result.value as { suspended?: { runId: string; pending: readonly { toolName: string; approvalId: string; reason: string }[] }; result?: JsonValue } | undefined;
    if (result.isError) {
      throw new CliError(`run ${runId}: ${visibleText(result.error?.message ?? 'failed')}`, EXIT.failed);
    }
    if (value?.suspended) {
      print(`run ${runId} suspended again: waits for ${value.suspended.pending.map((p) => `${oneLine(p.toolName, 80)} (${oneLine(p.reason)}) [approval ${p.approvalId}]`).join(', ')}`);
      return;
    }
    print(JSON.stringify(value?.result ?? value ?? null, null, 2));
  } finally {
    await session.close();
  }
}
