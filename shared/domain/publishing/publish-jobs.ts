/**
 * Where a post's publish job stands: `pending` (waiting, delayed or running), `finished`
 * (completed or failed: its id is kept for a while, so adding it again would change nothing) or
 * `absent` (never added, removed, or lost with Redis's data).
 */
export type PublishJobPresence = 'pending' | 'finished' | 'absent';

/** The queue as publication recovery sees it: a port, so this domain knows nothing of BullMQ. */
export interface PublishJobs {
  presence(postId: string): Promise<PublishJobPresence>;
  /**
   * Replaces a finished or missing job by a new one, due now. A pending job is left as it is:
   * one post never has two jobs.
   */
  requeue(job: { organizationId: string; postId: string }): Promise<void>;
}
