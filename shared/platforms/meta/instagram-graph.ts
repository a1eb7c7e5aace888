import { graphApiVersion } from './meta-graph.ts';
import { metaRetryAfterMs, readGraphRefusal } from './meta-graph-refusals.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { classifyInstagramError, instagramErrorMessage } from './instagram-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

/** Which Instagram API a channel is published through: its provider name and its Graph host. */
export interface InstagramHost {
  provider: string;
  /** graph.facebook.com (Facebook Login) or graph.instagram.com (Instagram Login), or a simulator. */
  apiUrl: string;
  timeoutMs: number;
}

/**
 * Graph calls for one channel: versioned paths, the token as `access_token` (query for reads,
 * form for writes, as Meta's references show), Instagram's error classes and Meta's usage
 * headers read for the time to wait.
 */
export class InstagramGraph {
  readonly #host: InstagramHost;
  readonly #accessToken: string;

  constructor(host: InstagramHost, accessToken: string) {
    this.#host = host;
    this.#accessToken = accessToken;
  }

  get provider(): string {
    return this.#host.provider;
  }

  get(path: string, query: Record<string, string> = {}): Promise<unknown> {
    const search = new URLSearchParams({ ...query, access_token: this.#accessToken });
    return this.#send('GET', `${this.#url(path)}?${search.toString()}`);
  }

  post(path: string, form: Record<string, string>): Promise<unknown> {
    return this.#send('POST', this.#url(path), { ...form, access_token: this.#accessToken });
  }

  /**
   * A read whose refusal with `code` is an answer, not a failure (insights of a media with too
   * few viewers): null then.
   */
  async getUnlessRefused(path: string, query: Record<string, string>, code: number): Promise<unknown> {
    const search = new URLSearchParams({ ...query, access_token: this.#accessToken });
    try {
      return await this.#send('GET', `${this.#url(path)}?${search.toString()}`);
    } catch (error) {
      if (error instanceof PlatformError && readGraphRefusal(error.body)?.code === code) return null;
      throw error;
    }
  }

  /** A refusal carrying Instagram's answer could not be read: it is our bug or theirs, not worth retrying. */
  unreadable(what: string, cause?: unknown): PlatformError {
    return unreadableAnswer(this.#host.provider, `Instagram answered with ${what}`, { cause });
  }

  #url(path: string): string {
    return `${this.#host.apiUrl.replace(trailingSlashes, '')}/${graphApiVersion}${path}`;
  }

  #send(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string>,
  ): Promise<unknown> {
    return platformRequest({
      provider: this.#host.provider,
      serverName: 'Instagram',
      method,
      url,
      ...(form === undefined ? {} : { form }),
      timeoutMs: this.#host.timeoutMs,
      errorMessage: instagramErrorMessage,
      classify: classifyInstagramError,
      retryAfterMs: metaRetryAfterMs,
    });
  }
}
