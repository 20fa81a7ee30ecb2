/**
 * Every surface a model reads run_code through carries the same description: the AI SDK, the
 * OpenAI Agents SDK, Anthropic's Messages API, LangChain and `ptc mcp serve` (a real SDK client
 * listing tools in memory). What the description says about the language and about `sleep` is
 * therefore said everywhere; this checks it where each framework puts it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAiSdkTools } from '../ai-sdk/index.js';
import { toAnthropicTools } from '../anthropic/index.js';
import { languageLevelLine } from '../codegen/index.js';
import { toLangChainTools } from '../langchain/index.js';
import { createMcpServer } from '../mcp/index.js';
import { toAgentsTools } from '../openai-agents/index.js';
import { createRunCodeTool, type RunCodeTool } from '../runtime/index.js';
import { createToolHost, defineTool } from '../tools/index.js';

describe('when each framework lists run_code', () => {
  const host = createToolHost();
  host.register(defineTool({ name: 'ping', description: 'Check the service is up.', parameters: {}, execute: () => 'pong' }));
  let runCode: RunCodeTool;
  let client: Client;
  beforeAll(async () => {
    runCode = createRunCodeTool({ host, isolation: 'isolate', warmup: false });
    host.register(runCode);
    const server = createMcpServer({ host });
    const [a, b] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'surfaces', version: '1.0.0' });
    await Promise.all([server.connect(a), client.connect(b)]);
  });
  afterAll(async () => {
    await client?.close();
    await runCode?.close();
  });

  it('states the language level the type check enforces and offers sleep, on every surface', async () => {
    const line = languageLevelLine();
    const seen: Record<string, unknown> = {
      'ai-sdk': toAiSdkTools(host).run_code?.description,
      'openai-agents': toAgentsTools(host).find((t) => t.name === 'run_code')?.description,
      anthropic: toAnthropicTools(host).find((t) => 'name' in t && t.name === 'run_code')?.description,
      langchain: toLangChainTools(host).find((t) => t.name === 'run_code')?.description,
      'mcp serve': (await client.listTools()).tools.find((t) => t.name === 'run_code')?.description,
    };
    for (const [surface, description] of Object.entries(seen)) {
      expect(description, surface).toBe(runCode.description);
      expect(String(description).split('\n'), surface).toContain(line);
      expect(String(description), surface).toContain('use `await sleep(ms)`: at most 10000 ms per call');
    }
  });
});
