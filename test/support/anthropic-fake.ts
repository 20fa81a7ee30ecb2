/**
 * The Anthropic client against a scripted Messages API, for offline tests: a real
 * `new Anthropic({ fetch })` whose `fetch` records every request and answers with the next
 * hand-written `Message`. The replies are typed as the SDK's `Message` (`satisfies`), so a
 * fixture that drifts from the API's shape does not compile. The SDK's OpenTelemetry spans are
 * off, so no test depends on them.
 */
import Anthropic from '@anthropic-ai/sdk';
import type {
  CodeExecutionToolResultBlock,
  ContentBlock,
  Message,
  MessageParam,
  ServerToolUseBlock,
  StopReason,
  TextBlock,
  ToolUseBlock,
  ToolUseCaller,
} from '@anthropic-ai/sdk/resources/messages';

/** One request the client sent. */
export interface RecordedRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: { readonly messages: readonly MessageParam[]; readonly tools?: readonly unknown[]; readonly container?: unknown; readonly [key: string]: unknown };
}

/** A client and what it sent. */
export interface FakeAnthropic {
  readonly client: Anthropic;
  readonly requests: RecordedRequest[];
}

export const MODEL = 'claude-sonnet-4-6';

/** A client whose requests to `/v1/messages` get `replies`, one each, in order. */
export function fakeAnthropic(replies: readonly Message[]): FakeAnthropic {
  const requests: RecordedRequest[] = [];
  const fakeFetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (init?.signal?.aborted) throw init.signal.reason ?? new DOMException('aborted', 'AbortError');
    const path = new URL(String(url)).pathname;
    if (path !== '/v1/messages') throw new Error(`the fake Messages API has no ${path}`);
    requests.push({ url: String(url), method: init?.method ?? 'GET', headers: Object.fromEntries(new Headers(init?.headers)), body: JSON.parse(String(init?.body)) as RecordedRequest['body'] });
    const reply = replies[requests.length - 1];
    if (!reply) throw new Error(`the fake Messages API has no reply for request ${requests.length}`);
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json', 'request-id': `req_${requests.length}` } });
  };
  const client = new Anthropic({ apiKey: 'test-key', fetch: fakeFetch, maxRetries: 0, openTelemetry: false });
  return { client, requests };
}

let messages = 0;

/** An assistant reply as the API sends it. */
export function reply(content: ContentBlock[], options: { stopReason?: StopReason; containerId?: string } = {}): Message {
  const stopReason = options.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  return {
    id: `msg_${String(++messages).padStart(4, '0')}`,
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content,
    container: options.containerId ? { id: options.containerId, expires_at: '2026-12-01T12:04:30Z', skills: null } : null,
    diagnostics: null,
    stop_details: null,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      cache_creation: null,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      inference_geo: null,
      input_tokens: 120,
      output_tokens: 40,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: 'standard',
      speed: null,
    },
  } satisfies Message;
}

/** A `tool_use` block: Claude's own call unless `caller` says otherwise. */
export const toolUse = (id: string, name: string, input: unknown, caller: ToolUseCaller = { type: 'direct' }): ToolUseBlock => ({ type: 'tool_use', id, name, input, caller });

/** A text block. */
export const text = (value: string): TextBlock => ({ type: 'text', text: value, citations: null });

/** Claude starting a program in the code execution tool. */
export const codeExecution = (id: string, code: string): ServerToolUseBlock => ({ type: 'server_tool_use', id, name: 'code_execution', input: { code }, caller: { type: 'direct' } });

/** The end of such a program: its stdout. */
export const codeExecutionResult = (toolUseId: string, stdout: string): CodeExecutionToolResultBlock => ({
  type: 'code_execution_tool_result',
  tool_use_id: toolUseId,
  content: { type: 'code_execution_result', stdout, stderr: '', return_code: 0, content: [] },
});

/** The `tool_result` blocks of a request's last user message. */
export function toolResultsOf(request: RecordedRequest | undefined): { tool_use_id: string; content?: unknown; is_error?: boolean }[] {
  const last = request?.body.messages.at(-1);
  if (!last || last.role !== 'user' || !Array.isArray(last.content)) return [];
  return last.content.filter((b) => b.type === 'tool_result') as { tool_use_id: string; content?: unknown; is_error?: boolean }[];
}
