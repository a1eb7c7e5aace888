/** What running under the lock came to: the work's value, or the lock still held by another after the wait. */
export type RefreshLockOutcome<T> = { kind: 'ran'; value: T } | { kind: 'busy' };

/**
 * Serializes the token refreshes of one channel across every process (channel-tokens.ts): a port,
 * so the channels domain does not reach into the queue; shared/queue/redis-channel-refresh-lock.ts
 * holds it in Redis.
 */
export interface ChannelRefreshLock {
  /** Runs `work` holding the channel's lock for at most `holdMs`, waiting a little longer than that for it. */
  exclusive<T>(channelId: string, holdMs: number, work: () => Promise<T>): Promise<RefreshLockOutcome<T>>;
}
