import type { z } from 'zod';
import type { PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { provider, slackRefusal, slackRefusalBody, unreadable } from './slack-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

/**
 * How a method takes its arguments: reads in the query of a GET; chat.postMessage and
 * conversations.join as JSON; the files methods as a form (files.getUploadURLExternal takes no
 * JSON at all). The token always goes in the Authorization header, never in a URL or body.
 */
export type SlackArguments =
  | { query: Record<string, string> }
  | { json: Record<string, unknown> }
  | { form: Record<string, string> };

function slackErrorMessage(body: unknown): string | undefined {
  const refused = slackRefusalBody.safeParse(body);
  return refused.success ? refused.data.error : undefined;
}

/**
 * Calls Slack's Web API for one adapter or connect step. Slack answers most refusals with HTTP
 * 200, so every answer goes through here: `{ok: false}`, whatever its status (429 included), is
 * thrown as a SlackRefusal classified on its code (slack-errors.ts); `{ok: true}` is parsed with
 * the caller's schema.
 */
export class SlackApi {
  readonly #apiUrl: string;
  readonly #timeoutMs: number;
  readonly #canRefresh: boolean;

  constructor(apiUrl: string, timeoutMs: number, canRefresh = false) {
    this.#apiUrl = apiUrl.replace(trailingSlashes, '');
    this.#timeoutMs = timeoutMs;
    this.#canRefresh = canRefresh;
  }

  /**
   * `accepted`: the method makes something (a message, a share); an `ok: true` answer SPS cannot
   * read then means it was made and its id is unknown, which is 'unconfirmed', not a refusal.
   */
  async call<T>(
    token: string,
    method: string,
    args: SlackArguments,
    shape: z.ZodType<T>,
    options: { accepted?: boolean } = {},
  ): Promise<T> {
    const url = new URL(`${this.#apiUrl}/${method}`);
    if ('query' in args) for (const [name, value] of Object.entries(args.query)) url.searchParams.set(name, value);
    let body: unknown;
    try {
      body = await platformRequest({
        provider,
        serverName: 'Slack',
        method: 'query' in args ? 'GET' : 'POST',
        url: url.toString(),
        headers: { Authorization: `Bearer ${token}` },
        ...('json' in args ? { json: args.json } : {}),
        ...('form' in args ? { form: args.form } : {}),
        timeoutMs: this.#timeoutMs,
        errorMessage: slackErrorMessage,
      });
    } catch (error) {
      // A throttled call (HTTP 429) still carries Slack's code; the kit has read its Retry-After.
      if (!(error instanceof PlatformError) || error.httpStatus === null) throw error;
      const refused = slackRefusalBody.safeParse(error.body);
      if (!refused.success) throw error;
      const answer = { httpStatus: error.httpStatus, retryAfterMs: error.retryAfterMs, canRefresh: this.#canRefresh };
      throw slackRefusal(method, refused.data, answer);
    }
    const refused = slackRefusalBody.safeParse(body);
    if (refused.success) {
      throw slackRefusal(method, refused.data, { httpStatus: 200, retryAfterMs: null, canRefresh: this.#canRefresh });
    }
    const parsed = shape.safeParse(body);
    if (!parsed.success) throw unreadable(method, options.accepted === true ? 'unconfirmed' : 'permanent');
    return parsed.data;
  }

  /**
   * Sends a file's bytes to the upload URL files.getUploadURLExternal named, as the raw body with
   * its length. That URL is signed for the file and needs no token, so none is sent to it; the
   * host answers plain text (`OK - <bytes>`), which is not read.
   */
  async upload(uploadUrl: string, media: PublishMedia): Promise<void> {
    const data = await media.open();
    await platformRequest({
      provider,
      serverName: 'Slack\'s upload server',
      method: 'POST',
      url: uploadUrl,
      bytes: { data, contentType: media.mimeType, length: media.size },
      // Bytes take longer to send than a method call to answer: allow for a slow 1 MB a second.
      timeoutMs: this.#timeoutMs + Math.ceil(media.size / 1_000),
    });
  }
}
