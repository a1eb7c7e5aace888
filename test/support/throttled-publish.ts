import type { Queue } from 'bullmq';
import { expect } from 'vitest';
import { finishedPublishJob } from './finished-job.ts';
import { waitFor } from './stack.ts';

/**
 * When this process first saw a send among `sends` (the throttled calls a simulator received): the
 * wait for the platform's reset is measured from it, for simulators that keep no receive time.
 */
export function firstSendSeen(sends: () => readonly unknown[]): Promise<number> {
  return waitFor(() => (sends().length > 0 ? Date.now() : undefined), { what: 'the first try' });
}

/**
 * Expects the post's job completed in its first attempt after one wait for the platform's reset:
 * a throttle delays the job and spends no attempt.
 */
export async function expectThrottleSpentNoAttempt(queue: Queue, postId: string): Promise<void> {
  const job = await finishedPublishJob(queue, postId);
  expect(job).toMatchObject({ state: 'completed', attemptsMade: 1, data: { rateLimitDelays: 1 } });
}
