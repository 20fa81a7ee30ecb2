/**
 * Set-up of the test projects (vitest.config.ts): with PTC_TEST_ISOLATION=strict (the
 * `e2e-strict` project sets it), every sandbox-process runner the tests make, directly or
 * through run_code, runs each program in a process and isolate of its own (`isolation: {
 * strict: true }`), so the same run_code, adapter, durable and security tests check strict mode
 * too. Without the variable the module is passed through unchanged. (vi.mock is hoisted above
 * any condition, so the condition is inside the factory.)
 */
import { vi } from 'vitest';

vi.mock('../../runtime/sandbox-process/process-runner.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../runtime/sandbox-process/process-runner.js')>();
  if (process.env.PTC_TEST_ISOLATION !== 'strict') return actual;
  return { ...actual, createProcessRunner: (options: Parameters<typeof actual.createProcessRunner>[0] = {}) => actual.createProcessRunner({ ...options, strict: true }) };
});
