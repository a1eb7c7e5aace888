/** What became of a post's pending publication when asked to cancel it. */
export type CancelOutcome = 'cancelled' | 'absent' | 'running';

/** A post to publish at `publishAt`; its channel, when known, lets the worker read it with the post. */
export interface ScheduledPublication {
  organizationId: string;
  postId: string;
  channelId?: string;
  publishAt: Date;
}

/** The queue as the posts domain sees it: a port, so domain code knows nothing of BullMQ. */
export interface PublishScheduler {
  /** Idempotent per post: scheduling an already scheduled post changes nothing. */
  schedule(job: ScheduledPublication): Promise<void>;
  /** `running` means the post is being published right now and its job cannot be taken back. */
  cancel(postId: string): Promise<CancelOutcome>;
}
