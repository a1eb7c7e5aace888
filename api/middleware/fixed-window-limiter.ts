import type { RedisConnection } from '../../shared/queue/redis.ts';

/**
 * One round trip, atomic in Redis: count the hit, start the window on the first hit, report the
 * count and how long the window has left. Concurrent requests cannot both see the same count.
 */
const hitScript = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { count, ttl }
`;

const hitCommand = 'spsRateLimitHit';
type HitCommand = (this: RedisConnection, key: string, windowMs: number) => Promise<[number, number]>;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

/** Fixed-window counter per key (per organization for the public API). */
export class FixedWindowLimiter {
  readonly #redis: RedisConnection;
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #prefix: string;

  constructor(redis: RedisConnection, options: { limit: number; windowSeconds: number; keyPrefix: string }) {
    // Sent by its SHA (EVALSHA; ioredis loads it again after a Redis restart): every public request
    // counts a hit, and the script's text would otherwise travel and be hashed each time.
    if (!(hitCommand in redis)) redis.defineCommand(hitCommand, { numberOfKeys: 1, lua: hitScript });
    this.#redis = redis;
    this.#limit = options.limit;
    this.#windowMs = options.windowSeconds * 1000;
    this.#prefix = options.keyPrefix;
  }

  async hit(key: string): Promise<RateLimitDecision> {
    const command = (this.#redis as unknown as Record<typeof hitCommand, HitCommand>)[hitCommand];
    const [count, ttlMs] = await command.call(this.#redis, `${this.#prefix}:${key}`, this.#windowMs);
    return {
      allowed: count <= this.#limit,
      limit: this.#limit,
      remaining: Math.max(0, this.#limit - count),
      resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
      windowSeconds: this.#windowMs / 1000,
    };
  }
}
