import { createHash } from 'node:crypto';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * Discord's rate limits as the bot sees them (topics/rate-limits): every answer names its
 * route's bucket in `X-RateLimit-Limit`, `-Remaining`, `-Reset` (epoch seconds), `-Reset-After`
 * (seconds, with a fraction) and `-Bucket`; a spent bucket answers 429 with `{message,
 * retry_after (seconds, float), global}` and `Retry-After`, `X-RateLimit-Scope`, and for the
 * bot-wide limit `X-RateLimit-Global: true`. Buckets are per route and per major parameter (the
 * channel or guild in the path). Discord publishes no numbers: the simulator's are settable.
 * Also here, the faults a test arranges for a route's next requests: a refusal sent instead of
 * acting, or `lose` (act, then break the connection before the answer).
 * Facts: /work/shared/platforms/open-and-community.md 8.5 and 8.7.
 */

/** What the next request to a route gets: an answer without acting, acting with the answer lost, or passing. */
export type InjectedStep = SimulatedAnswer | { lose: true } | 'pass';

interface Bucket {
  used: number;
  resetAt: number;
}

/** A request's route: the path under /api/v10 with its snowflakes as `:id` (`POST /channels/:id/messages`). */
export function routeOf(method: string, path: string): string {
  return `${method} ${path.replace(/\/\d{5,}(?=\/|$)/g, '/:id')}`;
}

export class DiscordTraffic {
  /** Requests a bucket takes per window; settable by a test. */
  limit = 50;
  windowMs = 1_000;
  lostAnswers = 0;
  readonly #injected = new Map<string, InjectedStep[]>();
  readonly #buckets = new Map<string, Bucket>();

  failNext(route: string, ...steps: InjectedStep[]): void {
    this.#injected.set(route, [...(this.#injected.get(route) ?? []), ...steps]);
  }

  /**
   * Discord's 429 for a limit that resets in `seconds`: the route's bucket (scope `user`), or the
   * bot's global limit (no bucket headers, `X-RateLimit-Global`).
   */
  throttled(
    seconds: number,
    scope: 'user' | 'global' = 'user',
    route = 'POST /channels/:id/messages',
  ): SimulatedAnswer {
    const headers: Record<string, string> = {
      'retry-after': String(Math.ceil(seconds)),
      'x-ratelimit-scope': scope,
    };
    if (scope === 'global') headers['x-ratelimit-global'] = 'true';
    else Object.assign(headers, this.#bucketHeaders(route, 0, 5, Date.now() + seconds * 1000));
    return {
      status: 429,
      headers,
      body: { message: 'You are being rate limited.', retry_after: seconds, global: scope === 'global' },
    };
  }

  /**
   * Runs one request of `route` on the bucket of `major` (the channel or guild it names): an
   * injected step first, then the bucket, then `act`; every answer carries the bucket's headers.
   */
  async run(
    route: string,
    major: string,
    act: () => SimulatedAnswer | Promise<SimulatedAnswer>,
    now = Date.now(),
  ): Promise<SimulatedAnswer> {
    const step = this.#injected.get(route)?.shift() ?? 'pass';
    if (step !== 'pass' && !('lose' in step)) return step;
    const key = `${route} ${major}`;
    const bucket = this.#buckets.get(key);
    const live = bucket !== undefined && bucket.resetAt > now ? bucket : { used: 0, resetAt: now + this.windowMs };
    this.#buckets.set(key, live);
    if (live.used >= this.limit) {
      const answer = this.throttled((live.resetAt - now) / 1000, 'user', route);
      return { ...answer, headers: { ...answer.headers, ...this.#bucketHeaders(route, 0, this.limit, live.resetAt) } };
    }
    live.used += 1;
    const answer = await act();
    const named = this.#bucketHeaders(route, this.limit - live.used, this.limit, live.resetAt);
    const headers = { ...named, ...answer.headers };
    if (step === 'pass') return { ...answer, headers };
    this.lostAnswers += 1;
    return { ...answer, headers, lose: true };
  }

  #bucketHeaders(route: string, remaining: number, limit: number, resetAt: number): Record<string, string> {
    const now = Date.now();
    return {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': (resetAt / 1000).toFixed(3),
      'x-ratelimit-reset-after': (Math.max(0, resetAt - now) / 1000).toFixed(3),
      'x-ratelimit-bucket': createHash('sha256').update(route).digest('hex').slice(0, 32),
    };
  }
}
