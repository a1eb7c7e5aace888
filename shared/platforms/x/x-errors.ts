import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';

/**
 * X's API refusals are problem details (`{title, detail, type, status}`); a 400 adds `errors[]`
 * naming each refused parameter, and lookups answer 200 with `errors[]` for items they could not
 * serve. Facts: ../shared/platforms/oauth-majors.md, section 1.5.
 */
const problemBody = z.object({
  title: z.string().optional(),
  detail: z.string().optional(),
  type: z.string().optional(),
  errors: z.array(z.object({ message: z.string().optional(), detail: z.string().optional() }).loose()).optional(),
}).loose();

export const problemTypes = 'https://api.x.com/2/problems';

/** The problem type's last segment (`usage-capped`, `client-forbidden`), or '' for `about:blank`. */
function problemKind(body: unknown): string {
  const parsed = problemBody.safeParse(body);
  const type = parsed.success ? parsed.data.type ?? '' : '';
  return type.startsWith(`${problemTypes}/`) ? type.slice(problemTypes.length + 1) : '';
}

/** X's own words: the first item's message where it lists them, else `detail`, else `title`. */
export function xErrorMessage(body: unknown): string | undefined {
  const parsed = problemBody.safeParse(body);
  if (!parsed.success) return undefined;
  const first = parsed.data.errors?.[0];
  const text = first?.message ?? first?.detail ?? parsed.data.detail ?? parsed.data.title;
  return text === undefined ? undefined : `X: ${text}`;
}

/** "You are not allowed to create a Tweet with duplicate content." (403). */
export function isDuplicateContent(status: number, message: string): boolean {
  return status === 403 && /duplicate content/i.test(message);
}

/**
 * What a refusal means for the channel and the post:
 * - 401: the access token expired or was voided; the engine refreshes once, and a refused
 *   refresh (revoked app) flags the channel.
 * - 403 `client-forbidden` / `not-authorized-for-resource` (the app lost its access or a scope),
 *   or a suspended or locked account: the channel cannot post until the user acts.
 * - 429 `usage-capped`: the app's credits or plan are spent, not a window that resets; waiting
 *   for `x-rate-limit-reset` would not help, so the post fails with X's words.
 * - Other 403s (duplicate content, a video too long for the account) fail the post alone.
 */
export function classifyXRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  const kind = problemKind(body);
  if (status === 401) return 'refresh_token';
  if (status === 429) return kind === 'usage-capped' ? 'permanent' : 'retryable';
  if (status !== 403) return undefined;
  if (kind === 'client-forbidden' || kind === 'not-authorized-for-resource') return 'disconnected';
  const message = xErrorMessage(body) ?? '';
  if (/\b(suspended|locked)\b/i.test(message)) return 'disconnected';
  return 'permanent';
}

/** A reset further than this from now is not X's 15-minute window: ignore it rather than wait a day. */
const longestWindowMs = 24 * 60 * 60 * 1000;

/**
 * How long a 429 asks us to wait. X sends no Retry-After: `x-rate-limit-reset` is the epoch
 * second the window reopens (and `x-user-limit-24hour-reset` for the daily cap, when that one
 * is spent). At least one second, so a reset already past still spaces the retry out.
 */
export function xRetryAfterMs(status: number, header: (name: string) => string | null, now: number): number | null {
  if (status !== 429) return null;
  const spentDaily = header('x-user-limit-24hour-remaining') === '0';
  const reset = Number(header(spentDaily ? 'x-user-limit-24hour-reset' : 'x-rate-limit-reset') ?? '');
  if (!Number.isFinite(reset) || reset <= 0) return null;
  const waitMs = reset * 1000 - now;
  if (waitMs > longestWindowMs) return null;
  return Math.max(1_000, Math.round(waitMs));
}
