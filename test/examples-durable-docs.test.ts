/** The durable-runs code docs/agent-loop.md shows for each framework is in its tested example, line for line. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(new URL('../docs/agent-loop.md', import.meta.url), 'utf8');

describe('the durable-runs parts of docs/agent-loop.md', () => {
  it.each(['durable-ai-sdk', 'durable-openai-agents', 'durable-anthropic', 'durable-langchain'])('show code that is in examples/%s.ts', (name) => {
    const block = new RegExp(`\`\`\`ts\\n// from examples/${name}\\.ts\\n([\\s\\S]*?)\`\`\``).exec(doc);
    expect(block, `a ts block starting with // from examples/${name}.ts`).not.toBeNull();
    const file = new Set(readFileSync(new URL(`../examples/${name}.ts`, import.meta.url), 'utf8').split('\n').map((l) => l.trim()));
    const lines = block![1]!.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('//'));
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.filter((l) => !file.has(l))).toEqual([]);
  });
});
