/** Background jobs: the manager behind `host.jobs`, the canonical handle, and the job_* tools. */
export { createJobManager, JOB_ID, newJobId } from './job-manager.js';
export { createMemoryJobStore, isJobStore, LEASE_LOST_ERROR } from './job-store.js';
export type { JobOutcome, JobStore, StoppedJob, StoredJob } from './job-store.js';
export { DEFAULT_JOB_READ_BYTES } from './job-types.js';
export type { JobInfo, JobManager, JobManagerOptions, JobReadResult, JobRunContext, JobStartOptions, JobStatus } from './job-types.js';
export { createJobTools, jobInfoSchema, MAX_JOB_READ_BYTES, MAX_JOB_WAIT_MS } from './job-tools.js';
export { backgroundHandleSchema, isBackgroundHandle } from './handle.js';
export type { BackgroundHandle } from './handle.js';
export { JobsNeedAsyncError, JobStartError, JobStoreError, UnknownJobError } from './errors.js';
export { DEFAULT_JOB_OUTPUT_BYTES, OutputRing, sliceRing } from './output-ring.js';
export type { OutputSlice } from './output-ring.js';
