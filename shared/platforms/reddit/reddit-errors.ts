import { z } from 'zod';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';

export const provider = 'reddit';

/**
 * How Reddit refuses a request at the HTTP level: `{"message": "Unauthorized", "error": 401}`,
 * with a `reason` for subreddits it will not show (`private`, `banned`, `quarantined`).
 */
const httpRefusal = z.object({ message: z.string(), reason: z.string().optional() }).loose();

/** Reddit's words for an HTTP refusal, with the reason where it gives one. */
export function redditErrorMessage(body: unknown): string | undefined {
  const parsed = httpRefusal.safeParse(body);
  if (!parsed.success) return undefined;
  const reason = parsed.data.reason === undefined ? '' : ` (${parsed.data.reason})`;
  return `Reddit: ${parsed.data.message}${reason}`;
}

/**
 * HTTP statuses by what SPS does about them (open-and-community.md 6.5): 401 is the hour-long
 * bearer token running out or being revoked, which a refresh settles or shows; 403 is a
 * subreddit that is private, banned or quarantined to this account, which waiting will not
 * change; 429 is the client's quota per minute. Other statuses keep the kit's reading.
 */
export function classifyRedditStatus(status: number): PlatformErrorKind | undefined {
  if (status === 401) return 'refresh_token';
  if (status === 403) return 'permanent';
  if (status === 429) return 'retryable';
  return undefined;
}

/**
 * Reddit counts a client's requests in a window and says in `X-Ratelimit-Reset` how many seconds
 * are left of it; a 429 waits that long (at least a second), or for Retry-After when it is absent.
 */
export function redditRetryAfterMs(
  status: number,
  header: (name: string) => string | null,
  now: number,
): number | null {
  if (status !== 429) return null;
  const reset = Number(header('x-ratelimit-reset') ?? '');
  if (Number.isFinite(reset) && reset > 0) return Math.max(1_000, Math.ceil(reset * 1000));
  return retryAfterHeaderMs(header, now);
}

/** One entry of `json.errors`: `[CODE, message, field]`. */
const errorEntry = z.tuple([z.string(), z.string(), z.string().nullable().optional()]).rest(z.unknown());

/**
 * The envelope of `api_type=json` answers. Reddit refuses what it was sent with HTTP 200 and a
 * non-empty `errors` list; a RATELIMIT refusal may also carry `ratelimit`, the seconds to wait.
 */
export const jsonEnvelope = z.object({
  json: z.object({
    errors: z.array(errorEntry).default([]),
    ratelimit: z.number().optional(),
    data: z.unknown().optional(),
  }).loose(),
});

type ErrorEntry = z.infer<typeof errorEntry>;

const units: Readonly<Record<string, number>> = {
  millisecond: 1, second: 1_000, minute: 60_000, hour: 3_600_000,
};

/**
 * How long RATELIMIT asks for, from `ratelimit` (seconds) or its words: "you are doing that too
 * much. try again in 5 minutes." / "Take a break for 9 seconds before trying again.". A
 * refusal naming no time waits a minute: Reddit throttles posting by the minute.
 */
export function rateLimitWaitMs(message: string, ratelimitSeconds: number | undefined): number {
  if (ratelimitSeconds !== undefined && ratelimitSeconds > 0) return Math.ceil(ratelimitSeconds * 1000);
  const match = /(?<!\d)(\d+)\s*(millisecond|second|minute|hour)s?/i.exec(message);
  if (match === null) return 60_000;
  return Number(match[1]) * (units[(match[2] ?? '').toLowerCase()] ?? 1_000);
}

/**
 * Codes by what SPS does about them. RATELIMIT is the per-account posting throttle (low karma,
 * posting often): wait and try again. USER_REQUIRED means Reddit took the request as logged out:
 * the token no longer counts, so refresh it. Everything else (SUBREDDIT_NOEXIST,
 * SUBREDDIT_NOTALLOWED, NO_SELFS, NO_LINKS, SUBMIT_VALIDATION_FLAIR_REQUIRED, ALREADY_SUB,
 * TOO_LONG, BAD_URL...) is about this post and would be refused the same way again.
 */
function kindOf(code: string): PlatformErrorKind {
  if (code === 'RATELIMIT') return 'retryable';
  if (code === 'USER_REQUIRED') return 'refresh_token';
  return 'permanent';
}

/** A definite answer from Reddit that it made nothing: the `json.errors` of an HTTP 200 answer. */
export class RedditRefusal extends PlatformError {
  readonly code: string;
  readonly field: string | null;

  constructor(errors: ErrorEntry[], ratelimitSeconds: number | undefined, what: string) {
    const [first] = errors;
    const code = first?.[0] ?? 'UNKNOWN';
    const words = errors.map(([name, message, field]) => `${message} (${name}${field ? `, ${field}` : ''})`);
    super({
      kind: kindOf(code),
      provider,
      message: `Reddit refused the ${what}: ${words.join('; ')}`,
      httpStatus: 200,
      retryAfterMs: code === 'RATELIMIT' ? rateLimitWaitMs(first?.[1] ?? '', ratelimitSeconds) : null,
      body: { json: { errors } },
    });
    this.name = 'RedditRefusal';
    this.code = code;
    this.field = first?.[2] ?? null;
  }
}

/**
 * Reddit said it did not act: `json.errors`, or a 4xx (bad request, token, quota, a subreddit
 * closed to the account). A 5xx, a timeout or a broken connection leave it open whether it did.
 */
export function isDefiniteRefusal(error: unknown): boolean {
  if (error instanceof RedditRefusal) return true;
  return error instanceof PlatformError && error.httpStatus !== null && error.httpStatus >= 400
    && error.httpStatus < 500;
}

export function unreadable(what: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message: `SPS could not read Reddit's answer: ${what}` });
}
