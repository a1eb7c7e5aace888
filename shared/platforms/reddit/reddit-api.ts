import type { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import {
  classifyRedditStatus, jsonEnvelope, provider, RedditRefusal, redditErrorMessage, redditRetryAfterMs, unreadable,
} from './reddit-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

/**
 * Reddit throttles clients that do not name themselves, and asks for
 * `<platform>:<app id>:<version> (by ...)`: the operator's client id names the app.
 */
export function redditUserAgent(clientId: string | null): string {
  return `web:${clientId ?? 'sps'}:0.1 (Social Publishing Service)`;
}

/**
 * A 2xx answer to an action that SPS cannot read: Reddit may well have acted, so the part is not
 * failed as refused; the caller looks for what was made (reddit-send-once.ts).
 */
function unreadableAction(what: string): PlatformError {
  return unreadableAnswer(
    provider, `Reddit answered the ${what} in a shape`, { consequence: 'it may have been made', kind: 'unconfirmed' },
  );
}

export interface RedditCall {
  method: 'GET' | 'POST';
  /** Path on oauth.reddit.com, such as `/api/submit`. */
  path: string;
  query?: Record<string, string>;
  form?: Record<string, string>;
  json?: unknown;
}

/**
 * Calls oauth.reddit.com for one adapter with the user's bearer token and SPS's User-Agent.
 * Reads ask for `raw_json=1`, since Reddit otherwise answers `&`, `<` and `>` as HTML entities,
 * and a title compared after a lost answer must read as it was sent.
 */
export class RedditApi {
  readonly apiUrl: string;
  readonly userAgent: string;
  readonly timeoutMs: number;

  constructor(apiUrl: string, clientId: string | null, timeoutMs: number) {
    this.apiUrl = apiUrl.replace(trailingSlashes, '');
    this.userAgent = redditUserAgent(clientId);
    this.timeoutMs = timeoutMs;
  }

  request(token: string, call: RedditCall): Promise<unknown> {
    const query = new URLSearchParams({ ...call.query, ...(call.method === 'GET' ? { raw_json: '1' } : {}) });
    const search = query.size === 0 ? '' : `?${query.toString()}`;
    return platformRequest({
      provider,
      serverName: 'Reddit',
      method: call.method,
      url: `${this.apiUrl}${call.path}${search}`,
      headers: { Authorization: `bearer ${token}`, 'User-Agent': this.userAgent },
      ...(call.form === undefined ? {} : { form: call.form }),
      ...(call.json === undefined ? {} : { json: call.json }),
      timeoutMs: this.timeoutMs,
      errorMessage: redditErrorMessage,
      classify: classifyRedditStatus,
      retryAfterMs: redditRetryAfterMs,
    });
  }

  /** A read whose answer must have `shape`; `what` names it in the message when it does not. */
  async read<T>(token: string, call: RedditCall, shape: z.ZodType<T>, what: string): Promise<T> {
    const parsed = shape.safeParse(await this.request(token, call));
    if (!parsed.success) throw unreadable(what);
    return parsed.data;
  }

  /**
   * An action sent with `api_type=json` (submit, comment, the upload lease's gallery): Reddit
   * refuses it with HTTP 200 and `json.errors`, thrown here as a RedditRefusal; `json.data`
   * must have `shape`.
   */
  async act<T>(token: string, call: RedditCall, shape: z.ZodType<T>, what: string): Promise<T> {
    const envelope = jsonEnvelope.safeParse(await this.request(token, call));
    if (!envelope.success) throw unreadableAction(what);
    const { errors, ratelimit, data } = envelope.data.json;
    if (errors.length > 0) throw new RedditRefusal(errors, ratelimit, what);
    const parsed = shape.safeParse(data);
    if (!parsed.success) throw unreadableAction(what);
    return parsed.data;
  }
}
