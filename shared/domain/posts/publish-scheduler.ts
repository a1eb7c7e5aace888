/** What became of a post's pending publication when asked to cancel it. */
export type CancelOutcome = 'cancelled' | 'absent' | 'running';

/** The queue as the posts domain sees it: a port, so domain code knows nothing of BullMQ. */
export interface PublishScheduler {
  /** Idempotent per post: scheduling an already scheduled post changes nothing. */
  schedule(job: { organizationId: string; postId: string; publishAt: Date }): Promise<void>;
  /** `running` means the post is being published right now and its job cannot be taken back. */
  cancel(postId: string): Promise<CancelOutcome>;
}
