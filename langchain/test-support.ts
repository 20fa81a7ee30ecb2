/** Small factories shared by the langchain/ tests (not part of the build). */
import type { ToolMessage } from '@langchain/core/messages';
import { createToolHost, decision, defineTool, type ApprovalChannel, type ToolEvent } from '../tools/index.js';
import { lookupHits, lookupTool } from '../test/support/lookup-tool.js';

/** A promise with its resolver exposed. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * A host with:
 * - `lookup({ q })`: parallel-safe, value `{ q, hits }` rendered as one line; `q: 'secret'` is
 *   denied by a guard, `q: 'ctx'` gets an additional context;
 * - `deploy({ env })`: a listener asks a person;
 * - `fail({ message })`: throws it;
 * - `wait()`: resolves `'stopped'` when its signal aborts;
 * - `note({ text })`: exclusive, held until `noteGate` opens;
 * - `snapshot()`: an image and a caption.
 * `log` records starts and ends of lookup and note; `runs` counts bodies; `signals` keeps wait's.
 */
export function testHost(options: { approval?: ApprovalChannel } = {}) {
  const events: ToolEvent[] = [];
  const host = createToolHost({ ...(options.approval ? { approval: options.approval } : {}), onEvent: (e) => events.push(e) });
  const runs = { lookup: 0, deploy: 0, fail: 0, wait: 0, note: 0 };
  const log: string[] = [];
  const signals: AbortSignal[] = [];
  let noteGate = gate();
  host.register([
    lookupTool((args) => {
      runs.lookup++;
      log.push(`lookup ${args.q}`);
      return lookupHits(args);
    }),
    defineTool({ name: 'deploy', description: 'Deploys.', parameters: { env: { type: 'string', required: true } }, execute: (args) => (runs.deploy++, { deployed: args.env }) }),
    defineTool({ name: 'fail', description: 'Fails.', parameters: { message: { type: 'string', required: true } }, execute: (args) => { runs.fail++; throw new Error(args.message); } }),
    defineTool({
      name: 'wait',
      description: 'Waits until cancelled.',
      execute: (_args, exec) => {
        runs.wait++;
        signals.push(exec.signal);
        return new Promise<string>((resolve) => exec.signal.addEventListener('abort', () => resolve('stopped'), { once: true }));
      },
    }),
    defineTool({
      name: 'note',
      description: 'Writes a note.',
      parameters: { text: { type: 'string', required: true } },
      execute: async (args) => {
        runs.note++;
        log.push(`start note ${args.text}`);
        await noteGate.opened;
        log.push(`end note ${args.text}`);
        return { noted: args.text };
      },
    }),
    defineTool({
      name: 'snapshot',
      description: 'Takes a picture.',
      execute: () => ({ width: 1 }),
      output: { render: () => [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }, { type: 'text', text: 'a 1 px picture' }] },
    }),
  ]);
  host.hooks.preExecute((e) => (e.toolName === 'deploy' ? decision.ask('deploys need a person') : undefined));
  host.hooks.preExecute((e) => (e.toolName === 'lookup' && (e.args as { q: string }).q === 'ctx' ? decision.allow({ additionalContext: 'remember: ctx results are cached' }) : undefined));
  host.hooks.guard((e) => (e.toolName === 'lookup' && (e.args as { q: string }).q === 'secret' ? 'secret terms are off limits' : undefined));
  return {
    host,
    events,
    runs,
    log,
    signals,
    /** Lets every held note end; later notes are held again. */
    releaseNotes() {
      noteGate.open();
      noteGate = gate();
    },
  };
}

export type TestHost = ReturnType<typeof testHost>;

/** The `tool/result` event of call `callId`. */
export const resultEvent = (events: readonly ToolEvent[], callId: string) => events.find((e): e is Extract<ToolEvent, { type: 'tool/result' }> => e.type === 'tool/result' && e.callId === callId);

/** A tool call as LangChain passes it. */
export const toolCall = (id: string | undefined, name: string, args: Record<string, unknown>) => ({ ...(id !== undefined ? { id } : {}), name, args, type: 'tool_call' as const });

/** The message's content as one string (text blocks joined by newlines). */
export function contentText(message: ToolMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  return content.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : `[${block.type}]`)).join('\n');
}

/** Resolves after pending callbacks and a few timer turns, for "has X started yet" checks. */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setTimeout(r, 0));
}
