import type { Queue } from 'bullmq';
import type { RateLimitDelay, RateLimitDelays } from '../domain/channels/channel-health-reads.ts';
import { publishJobId, publishPostPayload } from './queues.ts';
import type { RedisConnection } from './redis.ts';

/**
 * BullMQ orders its delayed set by `timestamp * 0x1000 + n` (its getDelayedScore script): the
 * score divided by this is when the job falls due.
 */
const delayedScoreScale = 0x1000;

/**
 * Reads, never changes, which publish jobs wait for a platform's rate-limit reset: a job the
 * worker delayed for a 429 carries `rateLimitDelays` in its data and sits in the delayed set
 * until the reset. One pipelined round trip for all the posts asked about.
 */
export class PublishRateLimitDelays implements RateLimitDelays {
  readonly #queue: Queue;
  readonly #redis: RedisConnection;

  /** `redis` reaches the Redis `queue` lives in (the connection it was made with). */
  constructor(queue: Queue, redis: RedisConnection) {
    this.#queue = queue;
    this.#redis = redis;
  }

  async waitingForRateLimit(postIds: readonly string[]): Promise<RateLimitDelay[]> {
    if (postIds.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const postId of postIds) {
      const jobId = publishJobId(postId);
      pipeline.zscore(this.#queue.toKey('delayed'), jobId);
      pipeline.hget(this.#queue.toKey(jobId), 'data');
    }
    const answers = (await pipeline.exec()) ?? [];
    const delays: RateLimitDelay[] = [];
    postIds.forEach((postId, index) => {
      const [scoreError, score] = answers[index * 2] ?? [null, null];
      const [dataError, data] = answers[index * 2 + 1] ?? [null, null];
      if (scoreError !== null) throw scoreError;
      if (dataError !== null) throw dataError;
      if (typeof score !== 'string' || typeof data !== 'string') return;
      const payload = publishPostPayload.safeParse(JSON.parse(data));
      // A job delayed only because its post is not due yet carries no rateLimitDelays; one BullMQ's backoff
      // delays after an earlier 429 still does, and counts until it runs.
      if (!payload.success || (payload.data.rateLimitDelays ?? 0) === 0) return;
      delays.push({ postId, until: new Date(Math.floor(Number(score) / delayedScoreScale)) });
    });
    return delays;
  }
}
