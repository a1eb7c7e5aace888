import type { Queue } from 'bullmq';
import type { RedisConnection } from './redis.ts';

/**
 * BullMQ's highest priority number (2^21): a larger one is refused when the job is added. The
 * ten-thousandth post of one organization in one minute is far below it; beyond it, turns share.
 */
export const lastTurn = 2_097_152;

/** Posts due in the same minute of one organization share a count of turns. */
const turnWindowMs = 60_000;

/** How long a minute's count is kept after the minute: retries and recovery come later than that. */
const keptAfterMs = 3_600_000;

/**
 * The turn of a publish job among the posts its organization has due in the same minute: the
 * first post is turn 1, the tenth turn 10. It is the job's BullMQ priority, so when more posts are
 * due than the workers can publish at once they take every organization's first post, then every
 * organization's second, and so on: one organization's 10,000 posts due at 9:00 do not hold back
 * another's single post due at 9:00 or after (issue 31). Jobs due at different minutes keep their
 * turns: at 9:01 another organization's first post goes before the rest of the 9:00 backlog.
 *
 * The count is one Redis key per organization and minute (INCR, expiring an hour after the
 * minute), so it holds across api processes and works on a Redis Cluster (one key per command).
 */
export class TenantTurns {
  readonly #queue: Queue;
  readonly #redis: RedisConnection;

  /** Counts under `queue`'s keys, on `redis` (the connection the queue was made with). */
  constructor(queue: Queue, redis: RedisConnection) {
    this.#queue = queue;
    this.#redis = redis;
  }

  /** The next turn of `organizationId` among its posts due in the minute of `dueAt`. */
  async next(organizationId: string, dueAt: Date): Promise<number> {
    const window = Math.floor(dueAt.getTime() / turnWindowMs);
    const key = this.#queue.toKey(`turns:${organizationId}:${window}`);
    // One round trip, and the count never outlives its expiry even if this process stops between the two.
    const expiresAt = (window + 1) * turnWindowMs + keptAfterMs;
    const answers = await this.#redis.multi().incr(key).pexpireat(key, expiresAt).exec();
    const [error, turn] = answers?.[0] ?? [new Error('Redis discarded the turn count'), null];
    if (error !== null) throw error;
    return Math.min(Number(turn), lastTurn);
  }
}
