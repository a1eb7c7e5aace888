import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';
import { googleApiErrorMessage } from '../google/google-oauth.ts';

/**
 * Google Business Profile refusals: `{error: {code, message, status, details: [...]}}`, where the
 * canonical `status` (UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT, RESOURCE_EXHAUSTED...)
 * and the typed `details` say what happened, not the HTTP status alone. Facts:
 * ../shared/platforms/design-blogging-business.md, sections 7.5 and 7.7.
 */

const typeBase = 'type.googleapis.com/';

const errorInfo = z.object({
  '@type': z.literal(`${typeBase}google.rpc.ErrorInfo`),
  reason: z.string(),
  metadata: z.record(z.string(), z.string()).optional(),
});
const retryInfo = z.object({
  '@type': z.literal(`${typeBase}google.rpc.RetryInfo`),
  retryDelay: z.string().regex(/^\d+(\.\d+)?s$/),
});
/** The generic shape of a refused field. */
const badRequest = z.object({
  '@type': z.literal(`${typeBase}google.rpc.BadRequest`),
  fieldViolations: z.array(z.object({ field: z.string().optional(), description: z.string().optional() })),
});
/** The v4 API's own shape of refused fields (local posts). */
const validationError = z.object({
  '@type': z.literal(`${typeBase}google.mybusiness.v4.ValidationError`),
  errorDetails: z.array(z.object({ field: z.string().optional(), message: z.string().optional() })),
});

const statusError = z.object({
  error: z.object({
    message: z.string(),
    status: z.string().optional(),
    details: z.array(z.unknown()).optional(),
  }),
});

interface ReadRefusal {
  status: string | null;
  reasons: string[];
  /** `field: what is wrong`, from either shape of field violations. */
  fields: string[];
  /** RetryInfo's delay, in ms. */
  retryDelayMs: number | null;
  /** `quota_limit_value` of a quota refusal: "0" while the project is not approved for the API. */
  quotaLimitValue: string | null;
}

function readRefusal(body: unknown): ReadRefusal | null {
  const parsed = statusError.safeParse(body);
  if (!parsed.success) return null;
  const read: ReadRefusal = {
    status: parsed.data.error.status ?? null, reasons: [], fields: [], retryDelayMs: null, quotaLimitValue: null,
  };
  // Each detail is read on its own: one of a type this does not know leaves the others readable.
  for (const detail of parsed.data.error.details ?? []) {
    const info = errorInfo.safeParse(detail);
    if (info.success) {
      read.reasons.push(info.data.reason);
      read.quotaLimitValue ??= info.data.metadata?.quota_limit_value ?? null;
    }
    const retry = retryInfo.safeParse(detail);
    if (retry.success) read.retryDelayMs = Math.ceil(Number.parseFloat(retry.data.retryDelay) * 1000);
    const violations = badRequest.safeParse(detail);
    if (violations.success) {
      read.fields.push(...violations.data.fieldViolations.map((item) => fieldText(item.field, item.description)));
    }
    const validation = validationError.safeParse(detail);
    if (validation.success) {
      read.fields.push(...validation.data.errorDetails.map((item) => fieldText(item.field, item.message)));
    }
  }
  return read;
}

function fieldText(field: string | undefined, text: string | undefined): string {
  if (field === undefined || field === '') return text ?? 'invalid';
  return `${field}: ${text ?? 'invalid'}`;
}

/** The Google Cloud project may not call the API at all: no user can change that, the operator must. */
const projectRefusals = new Set(['SERVICE_DISABLED', 'API_DISABLED', 'CONSUMER_INVALID', 'BILLING_DISABLED']);

function quotaZero(read: ReadRefusal): boolean {
  return read.status === 'RESOURCE_EXHAUSTED' && read.quotaLimitValue === '0';
}

/** What some refusals mean for the user, said before Google's own words. */
function explanation(read: ReadRefusal): string | null {
  if (quotaZero(read)) {
    return 'the Google Cloud project of this SPS installation has no Business Profile API quota yet; Google '
      + 'grants it once the project\'s access request is approved';
  }
  if (read.status === 'PERMISSION_DENIED') {
    if (read.reasons.some((reason) => projectRefusals.has(reason))) {
      return 'the Google Cloud project of this SPS installation may not call the Business Profile API';
    }
    if (read.reasons.includes('ACCESS_TOKEN_SCOPE_INSUFFICIENT')) {
      return 'the location was connected without the business.manage permission: connect it again';
    }
    return 'the connected Google account no longer manages this Business Profile location: connect it again';
  }
  if (read.status === 'NOT_FOUND') {
    return 'the Business Profile location was not found (removed, or moved to another account): connect it again';
  }
  return null;
}

/** Google's message with its status, the fields it refused, and what it means for the user. */
export function gmbErrorMessage(body: unknown): string | undefined {
  const google = googleApiErrorMessage(body);
  const read = readRefusal(body);
  if (google === undefined || read === null) return undefined;
  const said = read.fields.length === 0 ? google : `${google}: ${read.fields.join('; ')}`;
  const meaning = explanation(read);
  return meaning === null ? `Google Business Profile: ${said}` : `Google Business Profile: ${meaning} (${said})`;
}

/**
 * - UNAUTHENTICATED: the hour-long access token expired; the engine refreshes it;
 * - PERMISSION_DENIED: the project's own refusal (API disabled) is permanent, since reconnecting
 *   cannot help; any other (no longer a manager of the location, a missing scope) is disconnected;
 * - NOT_FOUND: the location is gone: disconnected, the channel must be pointed at one again;
 * - RESOURCE_EXHAUSTED: retryable, except a quota of 0 (the project is not approved): permanent;
 * - INVALID_ARGUMENT, FAILED_PRECONDITION and other 4xx: permanent in Google's words;
 * - UNAVAILABLE, INTERNAL and other 5xx: retryable (the status decides).
 */
export function classifyGmbRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  const read = readRefusal(body);
  const code = read?.status ?? null;
  if (code === 'UNAUTHENTICATED' || (code === null && status === 401)) return 'refresh_token';
  if (read === null) return undefined;
  if (code === 'PERMISSION_DENIED') {
    return read.reasons.some((reason) => projectRefusals.has(reason)) ? 'permanent' : 'disconnected';
  }
  if (code === 'NOT_FOUND') return 'disconnected';
  if (code === 'RESOURCE_EXHAUSTED') return quotaZero(read) ? 'permanent' : 'retryable';
  if (code === 'ABORTED' || code === 'UNAVAILABLE') return 'retryable';
  return undefined;
}

/** Business Profile quotas are per minute (300 requests per minute per API); Google names no reset. */
const perMinuteWaitMs = 60_000;

/**
 * How long a throttled call waits: a Retry-After where one is sent, else the RetryInfo delay of
 * the body, else a minute for RESOURCE_EXHAUSTED. The publish worker caps the wait
 * (PUBLISH_MAX_RETRY_AFTER_MS) and counts the delays instead of spending attempts.
 */
export function gmbRetryAfterMs(
  _status: number,
  header: (name: string) => string | null,
  now: number,
  body: unknown,
): number | null {
  const retryAfter = retryAfterHeaderMs(header, now);
  if (retryAfter !== null) return retryAfter;
  const read = readRefusal(body);
  if (read === null || quotaZero(read)) return null;
  if (read.retryDelayMs !== null) return read.retryDelayMs;
  return read.status === 'RESOURCE_EXHAUSTED' ? perMinuteWaitMs : null;
}
