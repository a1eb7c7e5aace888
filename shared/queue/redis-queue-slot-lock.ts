import { DomainError } from '../errors.ts';
import type { QueueSlotLock } from '../domain/posts/queue-slot-lock.ts';
import { MutexTimeoutError, withRedisMutex } from './redis-mutex.ts';
import type { RedisConnection } from './redis.ts';

/** Choosing slots and storing a request's posts takes milliseconds; a dead holder frees them after this. */
const holdMs = 30_000;
/** A request behind others on the same channel waits this long, then is told to try again. */
const waitMs = 10_000;

/**
 * The posts domain's queue-slot lock: one Redis key per channel (`SET NX PX`, redis-mutex.ts),
 * taken in id order, so two requests naming the same channels never wait on each other in a circle.
 */
export class RedisQueueSlotLock implements QueueSlotLock {
  readonly #redis: RedisConnection;
  readonly #keyPrefix: string;

  /** `keyPrefix` is QUEUE_PREFIX, under which every Redis key of the deployment lives. */
  constructor(redis: RedisConnection, keyPrefix: string) {
    this.#redis = redis;
    this.#keyPrefix = keyPrefix;
  }

  async exclusive<T>(channelIds: readonly string[], work: () => Promise<T>): Promise<T> {
    const ordered = [...new Set(channelIds)].sort();
    const holding = (index: number): Promise<T> => {
      const channelId = ordered[index];
      if (channelId === undefined) return work();
      const key = `${this.#keyPrefix}:queue-slot:${channelId}`;
      return withRedisMutex(this.#redis, key, { holdMs, waitMs }, () => holding(index + 1));
    };
    try {
      return await holding(0);
    } catch (error) {
      if (!(error instanceof MutexTimeoutError)) throw error;
      throw new DomainError(
        'queue_unavailable', 'other requests are taking this channel\'s queue slots right now; try again', undefined,
        { cause: error },
      );
    }
  }
}
