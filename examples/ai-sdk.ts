/**
 * ptc-runtime in the Vercel AI SDK's own loop: the host's tools, run_code among them, as a
 * ToolSet for generateText. Every call the model makes, and every call its program makes, goes
 * through the host's pipeline and trace. Pass any AI SDK model (`openai('gpt-5')`,
 * `anthropic('claude-...')`); run directly, it uses a scripted model so it works offline.
 */
import { generateText, stepCountIs, type LanguageModel } from 'ai';
import { toAiSdkTools } from 'ptc-runtime/ai-sdk';
import { createRunCodeTool } from 'ptc-runtime/runtime';
import { createHost } from './tools.js';
import { EXAMPLE_PROGRAM, EXAMPLE_PROMPT } from './design-spend.js';

export async function aiSdkExample(model: LanguageModel) {
  const host = createHost(); // the example tools (team, expenses, documents) and their policy
  const runCode = createRunCodeTool({ host, limits: { wallMs: 30_000 } });
  host.register(runCode);
  try {
    return await generateText({
      model,
      tools: toAiSdkTools(host, { agent: { id: 'analyst' } }),
      prompt: EXAMPLE_PROMPT,
      // The default stops after the first tool step, before the model has read any result.
      stopWhen: stepCountIs(5),
    });
  } finally {
    await runCode.close();
  }
}

/** The program the scripted model sends (tests reuse it). */
export { EXAMPLE_PROGRAM };

if (process.argv[1]?.endsWith('ai-sdk.js')) {
  const { MockLanguageModelV3 } = await import('ai/test');
  const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
  const model = new MockLanguageModelV3({
    doGenerate: [
      { content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'run_code', input: JSON.stringify({ code: EXAMPLE_PROGRAM }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] },
      { content: [{ type: 'text', text: '(the model would answer from the totals here)' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
    ],
  });
  const result = await aiSdkExample(model);
  console.log(JSON.stringify(result.steps[0]!.toolResults[0]!.output, null, 2));
}
