/** The OS sandbox (bubblewrap) around sandbox processes: the probe, the command line, the seccomp filter. */
export { parseOsSandboxMode, prepareOsSandbox, resolveOsSandbox } from './os-sandbox.js';
export type { BubblewrapLaunch, BubblewrapSandbox, NoOsSandbox, OsSandboxKind, OsSandboxMode, OsSandboxOptions, SandboxWorker } from './os-sandbox.js';
export { OsSandboxOptionError, OsSandboxUnavailableError } from './errors.js';
export { openTaskCgroup, SANDBOX_MEMORY_HEADROOM_MB, SANDBOX_TASK_LIMIT } from './task-cgroup.js';
export type { TaskCgroup } from './task-cgroup.js';
