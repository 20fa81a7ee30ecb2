/** The job tools give programs typed bindings: a program using job_read's fields type-checks, a wrong field does not. */
import { describe, expect, it } from 'vitest';
import { checkCode, generateToolTypes } from '../codegen/index.js';
import { bashTool } from '../examples/background-job.js';
import { createJobTools } from '../tools/index.js';

const types = generateToolTypes([bashTool, ...createJobTools()]);

describe('typed bindings of the job tools', () => {
  it('declare job_read with its status, output page and value', () => {
    expect(types.declarations).toContain('status: "running" | "succeeded" | "failed" | "killed";');
    expect(types.declarations).toContain('nextOffset: number;');
  });

  it('let a program read jobId from the handle and page through the output, type-checked', () => {
    const program = [
      "const started = await tools.bash({ command: 'make', background: true });",
      "if (!('jobId' in started)) return started.exitCode;",
      'let offset = 0;',
      'let text = "";',
      'for (;;) {',
      '  const page = await tools.job_read({ jobId: started.jobId, offset });',
      '  text += page.output;',
      '  if (page.status !== "running" && page.nextOffset >= page.outputBytes) break;',
      '  offset = page.nextOffset;',
      '}',
      'return text.length;',
    ].join('\n');
    const checked = checkCode(program, types);
    expect(checked.diagnostics).toEqual([]);
    expect(checked.ok).toBe(true);
  });

  it('reject a program that reads a field the job tools do not have', () => {
    const checked = checkCode("const page = await tools.job_read({ jobId: 'bash-1' });\nreturn page.exitStatus;", types);
    expect(checked.ok).toBe(false);
    expect(checked.diagnostics[0]?.message).toMatch(/exitStatus/);
  });
});
