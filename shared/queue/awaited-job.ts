import type { AwaitedJob } from '../domain/awaited-job.ts';
import type { Job, QueueEvents } from 'bullmq';


/**
 * Waits a bounded time for a job the api queued. A job that failed rejects with its error; one
 * still running after `timeoutMs` is reported as not finished, and keeps running.
 */
export async function awaitJob(job: Job, events: QueueEvents, timeoutMs: number): Promise<AwaitedJob> {
  try {
    return { finished: true, result: await job.waitUntilFinished(events, timeoutMs) };
  } catch (error) {
    if (error instanceof Error && /timed out before finishing/i.test(error.message)) return { finished: false };
    throw error;
  }
}
