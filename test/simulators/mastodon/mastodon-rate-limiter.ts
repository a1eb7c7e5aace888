/** One throttle: at most `limit` requests in each window of `periodMs`. */
export interface RateLimit {
  limit: number;
  periodMs: number;
}

/**
 * Mastodon's throttles that SPS meets (defaults from its rack_attack.rb and RateLimiter):
 * any API call 300 per 5 minutes per token, media uploads 30 per 30 minutes, statuses 300 per
 * 3 hours per account.
 */
export interface RateLimits {
  api: RateLimit;
  media: RateLimit;
  statuses: RateLimit;
}

export const defaultRateLimits: RateLimits = {
  api: { limit: 300, periodMs: 5 * 60_000 },
  media: { limit: 30, periodMs: 30 * 60_000 },
  statuses: { limit: 300, periodMs: 3 * 3_600_000 },
};

export interface Throttled {
  allowed: boolean;
  /** The X-RateLimit-* headers Mastodon sends with the answer, throttled or not. */
  headers: Record<string, string>;
}

/**
 * Fixed windows aligned on multiples of the period, as Rack::Attack keeps them: the count
 * goes up first, then a count over the limit is refused until the window ends.
 */
export class RateLimiter {
  readonly #counts = new Map<string, { window: number; count: number }>();

  hit(bucket: string, rule: RateLimit, now = Date.now()): Throttled {
    const window = Math.floor(now / rule.periodMs);
    const current = this.#counts.get(bucket);
    const count = current !== undefined && current.window === window ? current.count + 1 : 1;
    this.#counts.set(bucket, { window, count });
    const resetAt = new Date((window + 1) * rule.periodMs);
    return {
      allowed: count <= rule.limit,
      headers: {
        'X-RateLimit-Limit': String(rule.limit),
        'X-RateLimit-Remaining': String(Math.max(0, rule.limit - count)),
        'X-RateLimit-Reset': resetAt.toISOString(),
      },
    };
  }
}
