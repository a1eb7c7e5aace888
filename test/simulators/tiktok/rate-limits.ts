/**
 * TikTok's limits per user access token and minute (oauth-majors.md 8.7): 6 inits, 30 status
 * reads, 20 creator_info reads. TikTok sends no reset time with its 429: the window here is a
 * fixed minute from the first request in it. Routes without a documented limit get 600.
 */
export const perMinute: Readonly<Record<string, number>> = {
  'POST /v2/post/publish/video/init/': 6,
  'POST /v2/post/publish/inbox/video/init/': 6,
  'POST /v2/post/publish/content/init/': 6,
  'POST /v2/post/publish/status/fetch/': 30,
  'POST /v2/post/publish/creator_info/query/': 20,
};

const undocumented = 600;
const windowMs = 60_000;

export class RateWindows {
  /** Limits in force; tests may lower one to reach it quickly. */
  readonly limits: Record<string, number> = { ...perMinute };
  readonly #windows = new Map<string, { used: number; resetAt: number }>();

  /** Counts one request of `token` to `route`; true when the window was already spent. */
  spend(token: string, route: string, now = Date.now()): boolean {
    const key = `${token} ${route}`;
    let window = this.#windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { used: 0, resetAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.used += 1;
    return window.used > (this.limits[route] ?? undocumented);
  }
}
