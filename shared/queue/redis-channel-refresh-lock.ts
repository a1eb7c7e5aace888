import type { ChannelRefreshLock, RefreshLockOutcome } from '../domain/channels/channel-refresh-lock.ts';
import { MutexTimeoutError, withRedisMutex } from './redis-mutex.ts';
import type { RedisConnection } from './redis.ts';

/** The channels domain's refresh lock: one Redis key per channel (`SET NX PX`, redis-mutex.ts). */
export class RedisChannelRefreshLock implements ChannelRefreshLock {
  readonly #redis: RedisConnection;
  readonly #keyPrefix: string;

  /** `keyPrefix` is QUEUE_PREFIX, under which every Redis key of the deployment lives. */
  constructor(redis: RedisConnection, keyPrefix: string) {
    this.#redis = redis;
    this.#keyPrefix = keyPrefix;
  }

  async exclusive<T>(channelId: string, holdMs: number, work: () => Promise<T>): Promise<RefreshLockOutcome<T>> {
    const key = `${this.#keyPrefix}:channel-refresh:${channelId}`;
    try {
      // Waiting a little longer than a holder may hold it: a refresh behind another reads its result.
      return { kind: 'ran', value: await withRedisMutex(this.#redis, key, { holdMs, waitMs: holdMs + 1_000 }, work) };
    } catch (error) {
      if (error instanceof MutexTimeoutError) return { kind: 'busy' };
      throw error;
    }
  }
}
