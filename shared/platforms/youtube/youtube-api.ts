import type { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest, type PlatformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { classifyYoutubeRefusal, youtubeErrorMessage, youtubeRetryAfterMs } from './youtube-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export const provider = 'youtube';

/** What one call sets; the rest (token, timeouts, YouTube's error reading) is the same for all. */
export type YoutubeCall = Omit<PlatformRequest, 'provider' | 'timeoutMs' | 'errorMessage' | 'classify'
  | 'retryAfterMs' | 'serverName'> & { timeoutMs?: number };

export function unreadable(what: string, cause?: unknown): PlatformError {
  return unreadableAnswer(provider, `YouTube answered ${what}`, { cause });
}

/**
 * YouTube Data API v3 on behalf of one channel's token: `{apiUrl}/youtube/v3/...` for resources
 * and `{apiUrl}/upload/youtube/v3/...` for media, plus the upload session addresses YouTube
 * hands out, which are used exactly as given.
 */
export class YoutubeApi {
  readonly #root: string;
  readonly #accessToken: string;
  readonly timeoutMs: number;

  constructor(apiUrl: string, accessToken: string, timeoutMs: number) {
    this.#root = apiUrl.replace(trailingSlashes, '');
    this.#accessToken = accessToken;
    this.timeoutMs = timeoutMs;
  }

  /** `{apiUrl}{path}?{query}`. */
  endpoint(path: string, query: Record<string, string> = {}): string {
    const search = new URLSearchParams(query).toString();
    return `${this.#root}${path}${search === '' ? '' : `?${search}`}`;
  }

  request(call: YoutubeCall): Promise<unknown> {
    return platformRequest({
      ...call,
      provider,
      serverName: 'YouTube',
      headers: { Authorization: `Bearer ${this.#accessToken}`, ...call.headers },
      timeoutMs: call.timeoutMs ?? this.timeoutMs,
      errorMessage: youtubeErrorMessage,
      classify: classifyYoutubeRefusal,
      retryAfterMs: youtubeRetryAfterMs,
    });
  }

  /** A read of `{apiUrl}{path}`, parsed with `shape`; `what` names the answer should it not fit. */
  async get<T>(path: string, query: Record<string, string>, shape: z.ZodType<T>, what: string): Promise<T> {
    const parsed = shape.safeParse(await this.request({ method: 'GET', url: this.endpoint(path, query) }));
    if (!parsed.success) throw unreadable(what, parsed.error);
    return parsed.data;
  }
}
