import type { Readable } from 'node:stream';
import type { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { classifyPinterestRefusal, pinterestErrorMessage, pinterestRetryAfterMs } from './pinterest-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export const provider = 'pinterest';

/** One call to api.pinterest.com/v5 with the board's user token. */
export interface PinterestCall {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  /** A JSON body streamed as it is built (a pin whose images are inlined as base64). */
  jsonStream?: { data: Readable; length: number };
  /** For calls that carry a file: longer than the default. */
  timeoutMs?: number;
}

/** Calls Pinterest and reads its answer with `schema`; `what` names the answer in messages. */
export type PinterestApi = <T>(call: PinterestCall, schema: z.ZodType<T>, what: string) => Promise<T>;

export function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `Pinterest answered ${what}`);
}

export function pinterestApi(apiUrl: string, accessToken: string, timeoutMs: number): PinterestApi {
  const origin = apiUrl.replace(trailingSlashes, '');
  return async (call, schema, what) => {
    const search = call.query === undefined ? '' : `?${new URLSearchParams(call.query).toString()}`;
    const stream = call.jsonStream;
    const answer = await platformRequest({
      provider,
      method: call.method,
      url: `${origin}${call.path}${search}`,
      headers: { Authorization: `Bearer ${accessToken}` },
      ...(call.json === undefined ? {} : { json: call.json }),
      ...(stream === undefined
        ? {}
        : { bytes: { data: stream.data, contentType: 'application/json', length: stream.length } }),
      timeoutMs: call.timeoutMs ?? timeoutMs,
      errorMessage: pinterestErrorMessage,
      classify: classifyPinterestRefusal,
      retryAfterMs: pinterestRetryAfterMs,
    });
    const parsed = schema.safeParse(answer);
    if (!parsed.success) throw unreadable(what);
    return parsed.data;
  };
}
