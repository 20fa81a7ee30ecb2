/**
 * Jobs shared through a job store, on the memory store: two hosts of one process as two replicas.
 * The same contract runs against Redis in test/redis-jobs.test.ts.
 */
import { describe } from 'vitest';
import { createMemoryJobStore } from '../tools/index.js';
import { jobStoreContract } from './job-store-contract.js';

describe('shared jobs on the memory job store', () => {
  jobStoreContract('memory', async () => {
    const store = createMemoryJobStore();
    return { a: store, b: store, close: async () => {} };
  });
});
