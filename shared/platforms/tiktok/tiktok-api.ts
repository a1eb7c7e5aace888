import { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { classifyTikTokError, tiktokErrorMessage, tiktokRetryAfterMs } from './tiktok-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export const provider = 'tiktok';

/** One call to open.tiktokapis.com for one channel. */
export interface TikTokCall {
  method: 'GET' | 'POST';
  /** `/v2/...`, with its trailing slash as TikTok's paths have it. */
  path: string;
  query?: Record<string, string>;
  json?: unknown;
}

/** Calls TikTok API v2 with the channel's token; answers the envelope's `data`, parsed. */
export type TikTokApi = <T>(call: TikTokCall, schema: z.ZodType<T>, what: string) => Promise<T>;

/** `{data, error: {code, message}}`: TikTok says "ok" in `error.code` on success. */
const envelope = z.object({
  data: z.unknown(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

export function unreadable(what: string, cause?: unknown): PlatformError {
  return unreadableAnswer(provider, `TikTok answered with ${what}`, { cause });
}

export function tiktokApi(apiUrl: string, accessToken: string, timeoutMs: number): TikTokApi {
  const base = apiUrl.replace(trailingSlashes, '');
  return async (call, schema, what) => {
    const url = new URL(`${base}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const body = await platformRequest({
      provider,
      serverName: 'TikTok',
      method: call.method,
      url: url.toString(),
      headers: { Authorization: `Bearer ${accessToken}` },
      ...(call.json === undefined ? {} : { json: call.json }),
      timeoutMs,
      errorMessage: tiktokErrorMessage,
      classify: classifyTikTokError,
      retryAfterMs: tiktokRetryAfterMs,
      // Post ids are int64 JSON numbers: read as digits, not rounded to a double.
      exactIntegers: true,
    });
    const parsed = envelope.safeParse(body);
    if (!parsed.success) throw unreadable(what, parsed.error);
    const error = parsed.data.error;
    // A refusal is a refusal whatever the status it came with.
    if (error !== undefined && error.code !== 'ok') {
      throw new PlatformError({
        kind: classifyTikTokError(200, body) ?? 'permanent',
        provider,
        httpStatus: 200,
        retryAfterMs: tiktokRetryAfterMs(200, () => null, Date.now(), body),
        body,
        message: tiktokErrorMessage(body) ?? `TikTok refused the request (${error.code})`,
      });
    }
    const data = schema.safeParse(parsed.data.data);
    if (!data.success) throw unreadable(what, data.error);
    return data.data;
  };
}
