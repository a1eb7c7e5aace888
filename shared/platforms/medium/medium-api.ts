import { z } from 'zod';
import type { ChannelCredentials } from '../kit/platform-adapter.ts';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export const provider = 'medium';

/** Medium's error body: `{errors: [{message, code}]}`, e.g. 6003 "Token was invalid.". */
const errorBody = z.object({ errors: z.array(z.object({ message: z.string(), code: z.number().optional() })).min(1) });

export function mediumErrorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  return parsed.success ? parsed.data.errors.map((error) => error.message).join('; ') : undefined;
}

/**
 * Codes that mean the token no longer works (design-blogging-business.md 3.5): 6000 no token,
 * 6003 invalid or revoked, 6004 its user gone, 6005 its integration gone. Only the user can
 * paste another token, and Medium no longer issues new ones.
 */
const credentialCodes = new Set([6000, 6003, 6004, 6005]);

/** Medium's daily publishing cap, whatever status it comes with (never documented; 429 is likely). */
const dailyLimit = /reached the rate limit for publishing/i;

/**
 * The cap resets 24 h after the day's first story, which SPS cannot know; without a Retry-After
 * the part waits an hour at a time (PUBLISH_MAX_RETRY_AFTER_MS caps it too) instead of spending
 * attempts on refusals.
 */
const dailyLimitWaitMs = 60 * 60 * 1000;

function isDailyLimit(body: unknown): boolean {
  return dailyLimit.test(mediumErrorMessage(body) ?? '');
}

export function classifyMediumRefusal(_status: number, body: unknown): PlatformErrorKind | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  const codes = parsed.data.errors.flatMap((error) => (error.code === undefined ? [] : [error.code]));
  if (codes.some((code) => credentialCodes.has(code))) return 'disconnected';
  return isDailyLimit(body) ? 'retryable' : undefined;
}

function retryAfterMs(
  status: number,
  header: (name: string) => string | null,
  now: number,
  body: unknown,
): number | null {
  const said = retryAfterHeaderMs(header, now);
  if (said !== null) return said;
  return status === 429 || isDailyLimit(body) ? dailyLimitWaitMs : null;
}

export interface MediumCall {
  method: 'GET' | 'POST';
  path: string;
  json?: unknown;
}

/** One call to Medium's API v1 with the channel's integration token. */
export function mediumApi(apiUrl: string, timeoutMs: number) {
  const base = apiUrl.replace(trailingSlashes, '');
  return (channel: ChannelCredentials, call: MediumCall): Promise<unknown> => platformRequest({
    provider,
    serverName: 'Medium',
    method: call.method,
    url: `${base}${call.path}`,
    headers: { Authorization: `Bearer ${channel.accessToken}`, 'Accept-Charset': 'utf-8' },
    ...(call.json === undefined ? {} : { json: call.json }),
    timeoutMs,
    errorMessage: mediumErrorMessage,
    classify: classifyMediumRefusal,
    retryAfterMs,
  });
}

export type MediumApi = ReturnType<typeof mediumApi>;

export function unreadable(what: string, cause?: unknown): PlatformError {
  return unreadableAnswer(provider, `Medium answered with ${what}`, { cause });
}

const me = z.object({ data: z.object({ id: z.string().min(1) }) });

/** The token's user id, which stories are published under (GET /v1/me). */
export async function mediumUserId(api: MediumApi, channel: ChannelCredentials): Promise<string> {
  const answer = me.safeParse(await api(channel, { method: 'GET', path: '/me' }));
  if (!answer.success) throw unreadable('a profile', answer.error);
  return answer.data.data.id;
}
