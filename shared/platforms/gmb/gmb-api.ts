import type { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest, type PlatformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { classifyGmbRefusal, gmbErrorMessage, gmbRetryAfterMs } from './gmb-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

export const provider = 'gmb';

/** The account-management host; GMB_API_URL replaces it (tests point it at one simulator). */
export const gmbApiUrl = 'https://mybusinessaccountmanagement.googleapis.com';

/**
 * Google Business Profile is several APIs, each on its own host in production: account
 * management, business information (locations), the v4 API (local posts) and performance.
 * Any other base (a simulator, an operator's proxy) serves them all: their paths do not collide.
 */
export type GmbService =
  | 'mybusinessaccountmanagement' | 'mybusinessbusinessinformation' | 'mybusiness' | 'businessprofileperformance';

export function gmbServiceUrl(apiUrl: string, service: GmbService): string {
  const url = new URL(apiUrl);
  if (!url.hostname.startsWith('mybusinessaccountmanagement.')) return apiUrl.replace(trailingSlashes, '');
  url.hostname = url.hostname.replace(/^mybusinessaccountmanagement\./, `${service}.`);
  return url.toString().replace(trailingSlashes, '');
}

export function unreadable(what: string, cause?: unknown): PlatformError {
  return unreadableAnswer(provider, `Google Business Profile answered ${what}`, { cause });
}

/** What one call sets; the token, the timeout and Google's error reading are the same for all. */
export type GmbCall = Omit<PlatformRequest, 'provider' | 'timeoutMs' | 'errorMessage' | 'classify'
  | 'retryAfterMs' | 'serverName' | 'url'> & { service: GmbService; path: string; query?: URLSearchParams };

export interface GmbApiOptions {
  timeoutMs: number;
  /**
   * False while connecting: the token was issued a moment ago and there is no stored refresh
   * token to renew it with yet, so an expired token is `disconnected` there.
   */
  refreshable: boolean;
}

/** Google Business Profile's APIs on behalf of one Google token. */
export class GmbApi {
  readonly #apiUrl: string;
  readonly #accessToken: string;
  readonly #options: GmbApiOptions;

  constructor(apiUrl: string, accessToken: string, options: GmbApiOptions) {
    this.#apiUrl = apiUrl;
    this.#accessToken = accessToken;
    this.#options = options;
  }

  request({ service, path, query, ...call }: GmbCall): Promise<unknown> {
    const search = query === undefined || query.size === 0 ? '' : `?${query.toString()}`;
    return platformRequest({
      ...call,
      provider,
      serverName: 'Google Business Profile',
      url: `${gmbServiceUrl(this.#apiUrl, service)}${path}${search}`,
      headers: { Authorization: `Bearer ${this.#accessToken}`, ...call.headers },
      timeoutMs: this.#options.timeoutMs,
      errorMessage: gmbErrorMessage,
      classify: (status, body) => {
        const kind = classifyGmbRefusal(status, body);
        return kind === 'refresh_token' && !this.#options.refreshable ? 'disconnected' : kind;
      },
      retryAfterMs: gmbRetryAfterMs,
    });
  }

  /** A read parsed with `shape`; `what` names the answer should it not fit. */
  async get<T>(service: GmbService, path: string, query: URLSearchParams, shape: z.ZodType<T>, what: string):
  Promise<T> {
    const parsed = shape.safeParse(await this.request({ method: 'GET', service, path, query }));
    if (!parsed.success) throw unreadable(what, parsed.error);
    return parsed.data;
  }
}
