/**
 * `ptc trace verify|show|html <file...>`: audit a run. `verify` checks each hash chain (exit 1
 * when broken, naming the line) and the links between the files given; `show` prints the call
 * tree; `html` writes a self-contained report. Several files are one run's segments on several
 * hosts (or several replicas' chains): a run suspended in one and resumed in another is shown
 * as one run. Everything printed goes through terminal-text.ts (escaped, one function).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { TraceKey, TraceLink, TraceVerification } from '../../tools/index.js';
import { CliError, EXIT } from '../errors.js';
import { buildCallTree } from '../trace/call-tree.js';
import { keyFromEnv, loadTraces, type LoadedTraces } from '../trace/read-trace.js';
import { renderHtml } from '../trace/render-html.js';
import { treeLines } from '../trace/render-tree.js';
import { styled, terminalText, type TextLine } from '../trace/terminal-text.js';

const KEY_ENV_HELP = 'verify a keyed trace with the key in this environment variable (never on the command line)';

/** Prints lines to a stream, escaped (the only way this command writes). */
function print(stream: NodeJS.WriteStream, lines: readonly TextLine[], color = false): void {
  if (lines.length > 0) stream.write(terminalText(lines, { color }));
}

const keyOption = (opts: { keyEnv?: string }): { key?: TraceKey } => (opts.keyEnv !== undefined ? { key: keyFromEnv(opts.keyEnv) } : {});

/** One line saying whether a file's chain holds. */
function verdict(v: TraceVerification | undefined): string {
  if (!v) return 'plain session log (no hash chain: not verifiable)';
  const keyed = v.hash === 'hmac-sha256' ? 'keyed chain' : 'chain';
  return v.ok ? `${keyed} intact (${v.lines} lines, head ${v.headHash.slice(0, 16)}…)` : `CHAIN BROKEN: ${v.problems.map((p) => `line ${p.line} ${p.kind}`).join('; ')}`;
}

function linkLines(loaded: Pick<LoadedTraces, 'set'>, names: readonly string[]): TextLine[] {
  const line = (l: TraceLink): TextLine => [`  link: ${names[l.file]} line ${l.line} (${l.type}): `, l.status === 'broken' ? styled('red', `BROKEN: ${l.message}`) : l.status === 'unverified' ? `unverified link: ${l.message}` : l.message];
  return [...loaded.set.links.map(line), ...loaded.set.problems.map((p): TextLine => [styled('red', `  PROBLEM: ${p}`)])];
}

/** Looks up what verification found wrong with a line of a file, by the file's name. */
function damagedLines(loaded: LoadedTraces): (file: string, line: number) => string | undefined {
  const at = new Map<string, string>();
  for (const f of loaded.files) for (const p of f.verification?.problems ?? []) if (!at.has(`${f.name}\n${p.line}`)) at.set(`${f.name}\n${p.line}`, p.kind);
  return (file, line) => at.get(`${file}\n${line}`);
}

/** Registers `ptc trace`. */
export function registerTrace(program: Command): void {
  const trace = program
    .command('trace')
    .description('Audit a run: verify, show or render traces written by `ptc run --trace` (or any JSONL session log).')
    .addHelpText('after', '\nSeveral files: the chains of several hosts; a run suspended in one and resumed in another is checked and shown as one.\nExit codes: 0 ok, 1 a trace or a link failed verification, 2 usage or input error.');

  trace
    .command('verify')
    .description('Check each hash chain and the links between the files; name the first edited, deleted, inserted or reordered line.')
    .argument('<files...>', 'trace files (.jsonl)')
    .option('--json', 'print the verification as JSON')
    .option('--key-env <NAME>', KEY_ENV_HELP)
    .action((files: string[], opts: { json?: boolean; keyEnv?: string }) => {
      const loaded = loadTraces(files, keyOption(opts));
      const names = loaded.files.map((f) => f.name);
      const { set } = loaded;
      if (opts.json) {
        const one = (v: TraceVerification) => ({ ok: v.ok, lines: v.lines, events: v.events.length, headHash: v.headHash, ...(v.hash ? { hash: v.hash } : {}), ...(v.head ? { head: v.head } : {}), problems: v.problems });
        const links = set.links.map((l) => ({ file: names[l.file], line: l.line, type: l.type, ...(l.callId !== undefined ? { callId: l.callId } : {}), ...(l.to ? { to: l.to } : {}), status: l.status, message: l.message }));
        const body = files.length === 1 && links.length === 0 ? one(set.files[0]!) : { ok: set.ok, files: set.files.map((v, i) => ({ file: names[i], ...one(v) })), links, problems: set.problems };
        print(process.stdout, JSON.stringify(body, null, 2).split('\n').map((l) => [l]));
      } else {
        const out: TextLine[] = [];
        set.files.forEach((v, i) => {
          const label = files.length > 1 ? `${names[i]}: ` : '';
          const keyed = v.hash === 'hmac-sha256' ? 'keyed chain intact (HMAC-SHA256)' : 'chain intact';
          if (v.ok) out.push([`ok: ${label}${v.lines} lines, ${v.events.length} events, ${keyed}; head ${v.headHash}`]);
          else out.push([styled('red', 'BROKEN:'), ` ${files.length > 1 ? names[i]! : files[i]!}`], ...v.problems.map((p): TextLine => [`  line ${p.line}: ${p.kind}: ${p.message}`]));
        });
        out.push(...linkLines(loaded, names));
        print(process.stdout, out);
      }
      if (!set.ok) process.exitCode = EXIT.failed;
    });

  trace
    .command('show')
    .description('Print the call tree: each run_code call, its children in order with decision, duration and outcome.')
    .argument('<files...>', 'trace files (.jsonl); a run resumed in another file is shown whole')
    .option('--no-color', 'never colour the output')
    .option('--args-width <n>', 'longest argument preview', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 10) throw new CliError(`--args-width must be an integer >= 10, got ${v}`);
      return n;
    })
    .option('--key-env <NAME>', KEY_ENV_HELP)
    .action((files: string[], opts: { color?: boolean; argsWidth?: number; keyEnv?: string }) => {
      const loaded = loadTraces(files, keyOption(opts));
      const names = loaded.files.map((f) => f.name);
      const head: TextLine[] = [];
      for (const f of loaded.files) {
        head.push([`${f.name}: `, f.verification && !f.verification.ok ? styled('red', verdict(f.verification)) : verdict(f.verification)]);
        for (const u of f.unreadable) head.push([`  line ${u.line}: ${u.problem}`]);
      }
      head.push(...linkLines(loaded, names));
      const color = opts.color !== false && process.stdout.isTTY === true;
      print(process.stderr, head, opts.color !== false && process.stderr.isTTY === true);
      const lines = treeLines(buildCallTree(loaded.events, { sources: loaded.sources }), { damaged: damagedLines(loaded), ...(opts.argsWidth ? { argsWidth: opts.argsWidth } : {}) });
      print(process.stdout, lines.length ? lines : [['(no calls)']], color);
      if (loaded.failed) process.exitCode = EXIT.failed;
    });

  trace
    .command('html')
    .description('Write a self-contained HTML report: timeline (one lane per concurrent call, exclusive barriers, denials) and call tree.')
    .argument('<files...>', 'trace files (.jsonl)')
    .requiredOption('-o, --output <report.html>', 'where to write the page')
    .option('--key-env <NAME>', KEY_ENV_HELP)
    .action((files: string[], opts: { output: string; keyEnv?: string }) => {
      const loaded = loadTraces(files, keyOption(opts));
      const names = loaded.files.map((f) => f.name);
      const html = renderHtml(buildCallTree(loaded.events, { sources: loaded.sources }), {
        title: names.join(' + '),
        files: loaded.files.map((f) => ({ name: f.name, ...(f.verification ? { verification: f.verification } : {}) })),
        links: loaded.set.links.map((l) => ({ from: `${names[l.file]} line ${l.line}`, status: l.status, message: l.message })),
        problems: loaded.set.problems,
      });
      try {
        writeFileSync(opts.output, html);
      } catch (err) {
        throw new CliError(`cannot write ${opts.output}: ${(err as Error).message}`);
      }
      print(process.stderr, [[`wrote ${opts.output}`]]);
      if (loaded.failed) process.exitCode = EXIT.failed;
    });
}
