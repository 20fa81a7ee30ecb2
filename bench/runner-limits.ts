/** Limits for benchmarks that drive a runner directly: high enough that no limit is what a figure measures. */
import type { RunLimits } from '../runtime/program-runner.js';

export const BENCH_RUN_LIMITS: RunLimits = {
  memoryMb: 64,
  cpuMs: 30_000,
  wallMs: 60_000,
  maxCalls: 100_000,
  maxInFlight: 1_000,
  maxOutputBytes: 1 << 20,
  maxLogBytes: 1 << 20,
  maxArgBytes: 1 << 20,
  maxArgDepth: 64,
  maxArgNodes: 100_000,
  maxResultBytes: 1 << 20,
  rssMb: 1024,
  hostMs: 600_000,
  approvalWaitMs: 600_000,
};
