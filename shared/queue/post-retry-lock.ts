import { MutexTimeoutError, withRedisMutex } from './redis-mutex.ts';
import type { RedisConnection } from './redis.ts';
import type { RetryLock, RetryLockOutcome } from '../domain/posts/retry-post.ts';

/**
 * Longer than a retry takes (a few database writes and one queue add), so it never expires under
 * its holder; short enough that a process dying while holding it blocks retries of that post
 * only briefly.
 */
const holdMs = 30_000;

/**
 * The posts domain's retry lock, one Redis key per post (`SET NX PX`, redis-mutex.ts): atomic
 * where a conditional update on FerretDB is not (docs/ARCHITECTURE.md, "Atomic steps"). A
 * caller finding it taken is turned away at once rather than made to wait.
 */
export class RedisPostRetryLock implements RetryLock {
  readonly #redis: RedisConnection;
  readonly #keyPrefix: string;

  /** `keyPrefix` is QUEUE_PREFIX, under which every Redis key of the deployment lives. */
  constructor(redis: RedisConnection, keyPrefix: string) {
    this.#redis = redis;
    this.#keyPrefix = keyPrefix;
  }

  async exclusive<T>(postId: string, work: () => Promise<T>): Promise<RetryLockOutcome<T>> {
    const key = `${this.#keyPrefix}:post-retry:${postId}`;
    try {
      return { kind: 'ran', value: await withRedisMutex(this.#redis, key, { holdMs, waitMs: 0 }, work) };
    } catch (error) {
      // Waiting no time, a lock held by another retry is the only MutexTimeoutError there is.
      if (error instanceof MutexTimeoutError) return { kind: 'busy' };
      throw error;
    }
  }
}
