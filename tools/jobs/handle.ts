/**
 * The canonical background handle. A tool that starts a job returns this as (part of) its value,
 * and programs read `jobId` from it: never by parsing prose like "started background job bash-1".
 */
import { z } from 'zod';

/** What `jobs.start` returns and a backgrounded tool hands back. */
export interface BackgroundHandle {
  readonly kind: 'background';
  readonly jobId: string;
}

/** Zod schema of {@link BackgroundHandle}, for a tool's `output.schema` (alone or in a union). */
export const backgroundHandleSchema = z.strictObject({
  kind: z.literal('background'),
  jobId: z.string().describe('Pass to job_read / job_kill.'),
});

/** True when `value` has the exact shape of a background handle. */
export function isBackgroundHandle(value: unknown): value is BackgroundHandle {
  return backgroundHandleSchema.safeParse(value).success;
}
