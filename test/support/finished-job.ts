import type { Queue } from 'bullmq';
import { publishJobId } from '../../shared/queue/queues.ts';
import { waitFor } from './stack.ts';

/** A post's publish job as BullMQ keeps it once finished: its state and how many attempts it took. */
export interface FinishedJob {
  state: 'completed' | 'failed';
  attemptsMade: number;
  data: Record<string, unknown>;
}

/**
 * Waits for the post's job to finish, then reads it again: a job read before its state is asked
 * can be the copy from while it still ran, with the attempt that finished it not yet counted.
 */
export function finishedPublishJob(queue: Queue, postId: string): Promise<FinishedJob> {
  return waitFor(async () => {
    const id = publishJobId(postId);
    const state = await queue.getJobState(id);
    if (state !== 'completed' && state !== 'failed') return undefined;
    const job = await queue.getJob(id);
    if (job === undefined) return undefined;
    return { state, attemptsMade: job.attemptsMade, data: job.data as Record<string, unknown> };
  }, { what: `the job of post ${postId} to finish` });
}
