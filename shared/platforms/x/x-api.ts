import type { MultipartBody } from '../kit/platform-http.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { classifyXRefusal, xErrorMessage, xRetryAfterMs } from './x-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export const provider = 'x';

/** One call to X's API v2 on behalf of one user. */
export interface XCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** From the API's root: `/2/tweets`. */
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  multipart?: MultipartBody;
}

/** Calls X with one user's token; refusals come back as PlatformErrors in X's words (x-errors.ts). */
export type XApi = (call: XCall) => Promise<unknown>;

export function xApi(apiUrl: string, accessToken: string, timeoutMs: number): XApi {
  const root = apiUrl.replace(trailingSlashes, '');
  return (call) => {
    const search = new URLSearchParams(call.query ?? {}).toString();
    return platformRequest({
      provider,
      method: call.method,
      url: `${root}${call.path}${search === '' ? '' : `?${search}`}`,
      headers: { Authorization: `Bearer ${accessToken}` },
      ...(call.json === undefined ? {} : { json: call.json }),
      ...(call.multipart === undefined ? {} : { multipart: call.multipart }),
      timeoutMs,
      errorMessage: xErrorMessage,
      classify: classifyXRefusal,
      retryAfterMs: xRetryAfterMs,
    });
  };
}
