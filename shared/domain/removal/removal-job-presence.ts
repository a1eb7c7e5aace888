import type { RemovalJobs } from './removal-jobs.ts';

/** Where a post's removal job stands in the queue: waiting, delayed or running; done or failed; or gone. */
export type RemovalJobPresence = 'pending' | 'finished' | 'absent';

/** The queue as the removal sweep sees it: whether a post's job is alive, and queueing it again. */
export interface RemovalJobRecovery extends RemovalJobs {
  presence(postId: string): Promise<RemovalJobPresence>;
  /** Queues the post's removal again, replacing a finished job (whose kept id would stop the add). */
  requeue(job: { organizationId: string; postId: string }): Promise<void>;
}
