/** The queue as the posts domain sees it: a port, so domain code knows nothing of BullMQ. */
export interface PublishScheduler {
  /** Idempotent per post: scheduling an already scheduled post changes nothing. */
  schedule(job: { organizationId: string; postId: string; publishAt: Date }): Promise<void>;
  cancel(postId: string): Promise<void>;
}
