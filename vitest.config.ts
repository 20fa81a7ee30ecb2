import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The built code loads TypeScript and zod-to-ts through CommonJS re-exports
// (codegen/*-module.cts) that Vite does not transform; under test, import the packages.
const resolve = {
  alias: [
    { find: /^.*\/typescript-module\.cjs$/, replacement: 'typescript' },
    { find: /^.*\/zod-to-ts-module\.cjs$/, replacement: fileURLToPath(new URL('./test/support/zod-to-ts-default.ts', import.meta.url)) },
  ],
};

/**
 * Two projects. `unit`: the co-located tests of the layers that never load isolated-vm or start
 * sandbox processes (and of the isolate's guest, run in node:vm), in worker threads (fast start; `npm run test:unit` is the inner loop).
 * `e2e`: everything else (`test/`, the runtime, the adapters), each file in a forked process
 * started with `--no-node-snapshot`, as isolated-vm's README requires on Node 20+.
 *
 * Type-level tests (`*.test-d.ts`) are checked once, by `tsc --noEmit` in `npm test`: vitest's own
 * typecheck would run the compiler over the same files a second time.
 */
const UNIT = ['tools/**/*.test.ts', 'codegen/**/*.test.ts', 'bridge/**/*.test.ts', 'cli/**/*.test.ts', 'otel/**/*.test.ts', 'runtime/isolate/guest/**/*.test.ts'];

/** Run again in strict isolation (`e2e-strict`); `PTC_TEST_ISOLATION=strict npx vitest run --project e2e FILE` runs any other file so. */
const STRICT_FILES = ['test/run-code-basics.test.ts', 'test/run-code-policy.test.ts', 'test/run-code-abuse.test.ts', 'test/durable-runs.test.ts', 'test/os-sandbox.test.ts'];

export default defineConfig({
  resolve,
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 20_000,
    projects: [
      {
        resolve,
        test: { name: 'unit', include: UNIT, pool: 'threads', testTimeout: 20_000 },
      },
      {
        resolve,
        test: {
          name: 'e2e',
          include: ['**/*.test.ts'],
          exclude: ['node_modules/**', 'dist/**', ...UNIT],
          pool: 'forks',
          execArgv: ['--no-node-snapshot'],
          // A no-op unless PTC_TEST_ISOLATION=strict (then: strict isolation for any file).
          setupFiles: ['test/support/strict-isolation.ts'],
          testTimeout: 20_000,
        },
      },
      {
        resolve,
        // The key run_code, adapter, durable and security files again with `isolation: { strict:
        // true }` forced on every sandbox-process runner (test/support/strict-isolation.ts).
        test: {
          name: 'e2e-strict',
          include: STRICT_FILES,
          pool: 'forks',
          execArgv: ['--no-node-snapshot'],
          env: { PTC_TEST_ISOLATION: 'strict' },
          setupFiles: ['test/support/strict-isolation.ts'],
          testTimeout: 20_000,
        },
      },
    ],
  },
});
