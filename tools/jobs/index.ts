/** Background jobs: the manager behind `host.jobs`, the canonical handle, and the job_* tools. */
export { createJobManager, DEFAULT_JOB_READ_BYTES } from './job-manager.js';
export type { JobInfo, JobManager, JobManagerOptions, JobReadResult, JobRunContext, JobStartOptions, JobStatus } from './job-manager.js';
export { createJobTools, jobInfoSchema, MAX_JOB_READ_BYTES } from './job-tools.js';
export { backgroundHandleSchema, isBackgroundHandle } from './handle.js';
export type { BackgroundHandle } from './handle.js';
export { JobStartError, UnknownJobError } from './errors.js';
export { DEFAULT_JOB_OUTPUT_BYTES, OutputRing } from './output-ring.js';
export type { OutputSlice } from './output-ring.js';
