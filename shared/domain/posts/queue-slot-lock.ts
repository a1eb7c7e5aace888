/**
 * Serializes, per channel, choosing a `queue` post's free slot and storing the post that takes
 * it: MongoDB and FerretDB 1.24 cannot reserve a slot atomically (a unique index on channel and
 * minute would refuse the edits and drafts that may share one), so the posts domain asks for
 * this port and the api gives it a Redis lock (shared/queue/redis-queue-slot-lock.ts).
 */
export interface QueueSlotLock {
  /** Runs `work` while holding every channel's lock, waiting a few seconds for each at most. */
  exclusive<T>(channelIds: readonly string[], work: () => Promise<T>): Promise<T>;
}
