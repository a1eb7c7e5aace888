/**
 * Lemmy's rate limiter (open-and-community.md 7.7): a token bucket per kind of action (and IP; the
 * simulator sees one IP), holding `count` tokens and refilling them evenly over `perSecond`
 * seconds. A request finding less than one token is refused: 0.19 answers HTTP 400
 * `{"error":"rate_limit_error"}` and no header saying when to come back.
 */
export type LemmyBucket = 'message' | 'post' | 'register' | 'image' | 'comment' | 'search';

export interface BucketLimit {
  count: number;
  perSecond: number;
}

/** Lemmy's defaults for a new instance. */
const defaults: Record<LemmyBucket, BucketLimit> = {
  message: { count: 180, perSecond: 60 },
  post: { count: 6, perSecond: 600 },
  register: { count: 10, perSecond: 3600 },
  image: { count: 6, perSecond: 3600 },
  comment: { count: 6, perSecond: 600 },
  search: { count: 60, perSecond: 600 },
};

export class LemmyRateLimiter {
  readonly #limits = new Map<LemmyBucket, BucketLimit>(Object.entries(defaults) as [LemmyBucket, BucketLimit][]);
  readonly #buckets = new Map<LemmyBucket, { tokens: number; checkedAt: number }>();

  /** The instance admin changes a limit; the bucket starts full again. */
  set(bucket: LemmyBucket, limit: BucketLimit): void {
    this.#limits.set(bucket, limit);
    this.#buckets.delete(bucket);
  }

  /** As if the bucket's tokens had just been spent. */
  drain(bucket: LemmyBucket, now = Date.now()): void {
    this.#buckets.set(bucket, { tokens: 0, checkedAt: now });
  }

  /** Takes a token when one is there; false means the request is refused. */
  take(bucket: LemmyBucket, now = Date.now()): boolean {
    const limit = this.#limits.get(bucket) ?? defaults[bucket];
    const state = this.#buckets.get(bucket) ?? { tokens: limit.count, checkedAt: now };
    const refilled = ((now - state.checkedAt) / 1000) * (limit.count / limit.perSecond);
    const tokens = Math.min(limit.count, state.tokens + refilled);
    const allowed = tokens >= 1;
    this.#buckets.set(bucket, { tokens: allowed ? tokens - 1 : tokens, checkedAt: now });
    return allowed;
  }

  /**
   * `site_view.local_site_rate_limit` as GET /api/v3/site shows it, with the settings-import limit
   * the simulator does not enforce at Lemmy's default (1 per day).
   */
  siteView(published: string): Record<string, number | string> {
    const view: Record<string, number | string> = {
      local_site_id: 1, published, import_user_settings: 1, import_user_settings_per_second: 86_400,
    };
    for (const [bucket, limit] of this.#limits) {
      view[bucket] = limit.count;
      view[`${bucket}_per_second`] = limit.perSecond;
    }
    return view;
  }
}
