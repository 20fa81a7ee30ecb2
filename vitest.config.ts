import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The built code loads TypeScript and zod-to-ts through CommonJS re-exports
    // (codegen/*-module.cts) that Vite does not transform; under test, import the packages.
    alias: [
      { find: /^.*\/typescript-module\.cjs$/, replacement: 'typescript' },
      { find: /^.*\/zod-to-ts-module\.cjs$/, replacement: fileURLToPath(new URL('./test/support/zod-to-ts-default.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**'],
    // isolated-vm's README: Node 20+ must run without the startup snapshot.
    execArgv: ['--no-node-snapshot'],
    pool: 'forks',
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 20_000,
    typecheck: {
      enabled: true,
      include: ['**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
  },
});
