/**
 * The sandbox's language level, as the type check and its messages state it
 * (codegen/sandbox-language.ts), checked against a real isolated-vm isolate: every feature the
 * check allows works there, every feature the messages call missing is missing there. When
 * Node (and so V8) moves on, this fails and names what to add to the checker's lib.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checkCode, generateToolTypes } from '../codegen/index.js';
import { MISSING_FEATURES, SUPPORTED_FEATURES } from '../codegen/sandbox-language.js';
import { createIsolateRunner } from '../runtime/isolate/index.js';
import { runProgram } from './isolate-harness.js';
import { runCodeHost } from './run-code-support.js';

const runner = createIsolateRunner({ poolSize: 0 });
afterAll(() => runner.close());

async function probe(js: string): Promise<unknown> {
  const { outcome, value } = await runProgram(runner, js);
  return outcome.ok ? value : `failed: ${outcome.failure.kind}: ${outcome.failure.message}`;
}

describe('when the isolate is probed for the features the type check allows', () => {
  const types = generateToolTypes([]);
  for (const feature of SUPPORTED_FEATURES) {
    it(`has ${feature.name}, and the check accepts it`, async () => {
      expect(await probe(feature.probe)).toBe(true);
      expect(checkCode(`${feature.usage}\nreturn 1;`, types)).toEqual({ ok: true, diagnostics: [] });
    });
  }
});

describe('when the isolate is probed for the features the messages call missing', () => {
  for (const feature of MISSING_FEATURES) {
    it(`lacks ${feature.name} (if this fails, the isolate has it now: add its lib file to PROGRAM_LIB and drop it from MISSING_FEATURES)`, async () => {
      expect(await probe(feature.probe)).toBe(false);
    });
  }
});

describe('when run_code runs a program that uses the regular expression v flag', () => {
  it('passes the type check and runs it in the isolate', async () => {
    const { value, runCode } = runCodeHost('isolate');
    try {
      const v = await value("const re = /[\\p{L}--[a-z]]/v;\nreturn ['A', 'b', 'É'].filter((c) => re.test(c));");
      expect(v.result).toEqual(['A', 'É']);
    } finally {
      await runCode.close();
    }
  });
});
