import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';

/**
 * What a publishing adapter on a Meta Graph host does with a refusal, beyond the connect-time
 * reading in meta-graph.ts: Meta answers HTTP 400 for almost everything (throttling included),
 * so the kind comes from `code`, `error_subcode` and `is_transient`, and the wait from the usage
 * headers, never from Retry-After (Meta sends none). Facebook, Instagram and Threads share it.
 * Facts: ../shared/platforms/oauth-majors.md, section 3.5.
 */

const refusalBody = z.object({
  error: z.object({
    message: z.string(),
    code: z.number().optional(),
    error_subcode: z.number().optional(),
    is_transient: z.boolean().optional(),
    error_user_title: z.string().optional(),
    error_user_msg: z.string().optional(),
  }).loose(),
});

export interface GraphRefusal {
  message: string;
  code: number | null;
  subcode: number | null;
  transient: boolean;
  /** Meta's explanation meant for people, where it sent one (policy blocks, duplicates). */
  userMessage: string | null;
}

export function readGraphRefusal(body: unknown): GraphRefusal | null {
  const parsed = refusalBody.safeParse(body);
  if (!parsed.success) return null;
  const { error } = parsed.data;
  return {
    message: error.message,
    code: error.code ?? null,
    subcode: error.error_subcode ?? null,
    transient: error.is_transient === true,
    userMessage: error.error_user_msg ?? null,
  };
}

/** Meta's message, with its words for people after it when they add something. */
export function graphRefusalMessage(body: unknown): string | undefined {
  const refusal = readGraphRefusal(body);
  if (refusal === null) return typeof body === 'string' && body !== '' ? body.slice(0, 500) : undefined;
  const { message, userMessage } = refusal;
  return userMessage === null || message.includes(userMessage) ? message : `${message} (${userMessage})`;
}

/** 4 app, 17 user, 32 Page, 613 custom, 341 app limits; 80001-80014 business use case limits. */
const throttlingCodes = new Set([4, 17, 32, 341, 613]);
/** "You are posting too fast": the Page may post again later. */
const postingTooFast = 1390008;

export function isGraphThrottling(refusal: GraphRefusal): boolean {
  const { code, subcode } = refusal;
  if (subcode === postingTooFast) return true;
  return code !== null && (throttlingCodes.has(code) || (code >= 80001 && code <= 80014));
}

/** 1 unknown, 2 service: Meta's own trouble. */
const metaTrouble = new Set([1, 2]);
/** 190 token invalid, expired or revoked; 102 the session behind it ended. */
const deadToken = new Set([190, 102]);
/** 190/463: the token's time passed; only a platform that can renew tokens may try that. */
const expiredSubcode = 463;
/** 368 blocked for policy, 506 duplicate post, 1609005 the link could not be read. */
const refusedContent = new Set([368, 506, 1609005]);
/**
 * Abusive content, community standards, photo too big or of a wrong type, photos already
 * posted, a bad URL, identity confirmation needed: the same request would be refused again.
 */
const refusedContentSubcodes = new Set([1346003, 1404102, 1366046, 1366051, 2061006, 4854002]);
/** Page publishing authorization required: only the Page's admin can fix it on Facebook. */
const publishingAuthorization = 1404078;

export interface GraphRefusalRules {
  /** Whether the platform renews tokens (Instagram Login, Threads): only then is 190/463 `refresh_token`. */
  refreshable: boolean;
}

/**
 * The kind of a Graph refusal: content refusals are permanent (Meta's message shown), dead
 * tokens and missing permissions (10, 200-299) need the user to connect again, throttling and
 * Meta's own trouble pass. Anything else is left to the HTTP status.
 */
export function classifyGraphRefusal(
  status: number,
  body: unknown,
  rules: GraphRefusalRules,
): PlatformErrorKind | undefined {
  const refusal = readGraphRefusal(body);
  if (refusal === null) return status === 429 || status >= 500 ? 'retryable' : undefined;
  const { code, subcode } = refusal;
  if ((code !== null && refusedContent.has(code)) || (subcode !== null && refusedContentSubcodes.has(subcode))) {
    return 'permanent';
  }
  if (code !== null && deadToken.has(code)) {
    return rules.refreshable && subcode === expiredSubcode ? 'refresh_token' : 'disconnected';
  }
  if (subcode === publishingAuthorization) return 'disconnected';
  if (code === 10 || (code !== null && code >= 200 && code <= 299)) return 'disconnected';
  if (isGraphThrottling(refusal) || refusal.transient || (code !== null && metaTrouble.has(code))) return 'retryable';
  return status === 429 || status >= 500 ? 'retryable' : undefined;
}

/** Code 100 with subcode 33: "Object with ID '…' does not exist, cannot be loaded…". */
const missingObject = { code: 100, subcode: 33 };

/**
 * Whether a Graph refusal says the object is not there. Graph answers a deleted object with HTTP
 * 400 and this code rather than 404, so a removal must read it as "already gone" itself (Graph
 * uses other codes, 10 and 200-299, when the object exists and the token may not touch it).
 */
export function isGraphObjectMissing(body: unknown): boolean {
  const refusal = readGraphRefusal(body);
  return refusal?.code === missingObject.code && refusal.subcode === missingObject.subcode;
}

/** One entry of `X-Business-Use-Case-Usage`, or the whole of `X-App-Usage`. */
const usageEntry = z.object({ estimated_time_to_regain_access: z.coerce.number().nonnegative().optional() }).loose();
const businessUsage = z.record(z.string(), z.array(usageEntry));

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A header that is not JSON tells us no reset time; the job falls back to its backoff.
    return null;
  }
}

/** Minutes until access returns, the longest any throttled use case names; null when none does. */
function regainMinutes(header: (name: string) => string | null): number | null {
  const minutes: number[] = [];
  const business = businessUsage.safeParse(parseJson(header('x-business-use-case-usage') ?? 'null'));
  if (business.success) {
    for (const entries of Object.values(business.data)) {
      for (const entry of entries) {
        if (entry.estimated_time_to_regain_access !== undefined) minutes.push(entry.estimated_time_to_regain_access);
      }
    }
  }
  const app = usageEntry.safeParse(parseJson(header('x-app-usage') ?? 'null'));
  const appMinutes = app.success ? app.data.estimated_time_to_regain_access : undefined;
  if (appMinutes !== undefined) minutes.push(appMinutes);
  const longest = Math.max(0, ...minutes);
  // Zero minutes (or no estimate) names no reset: the ordinary backoff applies.
  return longest > 0 ? longest : null;
}

/**
 * How long Meta asks us to wait: `estimated_time_to_regain_access` (minutes) from
 * `X-Business-Use-Case-Usage` (Page tokens) or `X-App-Usage`, whatever the HTTP status, since
 * Meta throttles with 400. The worker uses it only for refusals classified as retryable.
 */
export function graphRetryAfterMs(_status: number, header: (name: string) => string | null): number | null {
  const minutes = regainMinutes(header);
  return minutes === null ? null : minutes * 60_000;
}

/**
 * Instagram's and Threads' daily publishing cap (code 9 with this subcode): a slot frees up as
 * the oldest post of the moving 24 hours leaves it.
 */
export const publishingLimitSubcode = 2207042;
export const publishingLimitWaitMs = 60 * 60 * 1000;
/** Throttled without a reset in the headers: Meta's windows roll, so a minute keeps the attempts for real failures. */
const throttledWithoutResetMs = 60 * 1000;

/**
 * The wait of a refusal on Instagram's and Threads' hosts: the publishing cap an hour, throttling
 * the usage headers' estimate (or Retry-After, or a minute when neither says), anything else
 * Retry-After alone. Their throttled refusals always wait instead of spending attempts.
 */
export function metaRetryAfterMs(
  status: number,
  header: (name: string) => string | null,
  now: number,
  body: unknown,
): number | null {
  const refusal = readGraphRefusal(body);
  if (refusal?.subcode === publishingLimitSubcode) return publishingLimitWaitMs;
  const named = graphRetryAfterMs(status, header) ?? retryAfterHeaderMs(header, now);
  if (named !== null) return named;
  return refusal !== null && isGraphThrottling(refusal) ? throttledWithoutResetMs : null;
}
