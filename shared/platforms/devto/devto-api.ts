import { z } from 'zod';
import type { ChannelCredentials } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export const provider = 'devto';

/** Forem's error body: `{error, status}`, the error being a sentence or a word such as "unauthorized". */
const errorBody = z.object({ error: z.string(), status: z.number().optional() });

/**
 * Forem's own words; "unauthorized" alone does not tell the user which value was wrong. Rack::Attack's
 * throttle answers "Retry later" in plain text, which platformRequest shows as it is.
 */
export function devtoErrorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  return parsed.data.status === 401 ? `${parsed.data.error}: dev.to did not accept the API key` : parsed.data.error;
}

/** Without the version header Forem answers with its deprecated v0 API. */
export const foremV1 = { Accept: 'application/vnd.forem.api-v1+json' };

export interface DevtoCall {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  query?: Record<string, string>;
  json?: unknown;
}

/**
 * One Forem API call with the channel's key. Statuses are Forem's own codes: 401 for a revoked
 * key or a suspended user (the channel is disconnected), 422 for what the article model refuses,
 * 429 with Retry-After for both the per-user limit and Rack::Attack's throttle (the default
 * classification and Retry-After reading of platformRequest).
 */
export function devtoApi(apiUrl: string, timeoutMs: number) {
  const base = apiUrl.replace(trailingSlashes, '');
  return (channel: ChannelCredentials, call: DevtoCall): Promise<unknown> => {
    const search = new URLSearchParams(call.query ?? {}).toString();
    return platformRequest({
      provider,
      serverName: 'dev.to',
      method: call.method,
      url: `${base}${call.path}${search === '' ? '' : `?${search}`}`,
      headers: { 'api-key': channel.accessToken, ...foremV1 },
      ...(call.json === undefined ? {} : { json: call.json }),
      timeoutMs,
      errorMessage: devtoErrorMessage,
    });
  };
}

export type DevtoApi = ReturnType<typeof devtoApi>;

export function unreadable(what: string, cause?: unknown): PlatformError {
  return unreadableAnswer(provider, `dev.to answered ${what}`, { cause });
}
