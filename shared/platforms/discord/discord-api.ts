import type { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest, type MultipartBody } from '../kit/platform-http.ts';
import {
  classifyDiscordRefusal, discordErrorMessage, discordRetryAfterMs, provider, unreadable,
} from './discord-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

/**
 * Discord asks bots to name themselves `DiscordBot (<url>, <version>)` (reference#user-agent); SPS
 * has no address of its own to give, so its name stands where the URL goes.
 */
export const discordUserAgent = 'DiscordBot (SPS Social Publishing Service, 0.1.0)';

/** The API version every path is under. */
const apiVersion = 'v10';

export type DiscordBody = { json: unknown } | { multipart: MultipartBody } | Record<string, never>;

/**
 * Calls Discord's HTTP API as the operator's bot (`Authorization: Bot <token>`, one bot per SPS
 * installation, DISCORD_BOT_TOKEN), every answer parsed with its zod shape and every refusal
 * classified on Discord's JSON codes (discord-errors.ts).
 */
export class DiscordApi {
  readonly #base: string;
  readonly #botToken: string | null;
  readonly #timeoutMs: number;

  constructor(apiUrl: string, botToken: string | null, timeoutMs: number) {
    this.#base = `${apiUrl.replace(trailingSlashes, '')}/${apiVersion}`;
    this.#botToken = botToken;
    this.#timeoutMs = timeoutMs;
  }

  async call<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    shape: z.ZodType<T>,
    what: string,
    body: DiscordBody = {},
    query: Record<string, string> = {},
  ): Promise<T> {
    if (this.#botToken === null) {
      const message = 'the Discord bot token is not configured on this SPS installation (DISCORD_BOT_TOKEN)';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const search = new URLSearchParams(query).toString();
    // Files take longer to send than a call to answer: allow for a slow 1 MB a second.
    const fileBytes = 'multipart' in body
      ? [body.multipart.file, ...(body.multipart.moreFiles ?? []).map((more) => more.file)]
        .reduce((sum, file) => sum + file.size, 0)
      : 0;
    const answer = await platformRequest({
      provider,
      serverName: 'Discord',
      method,
      url: `${this.#base}${path}${search === '' ? '' : `?${search}`}`,
      headers: { Authorization: `Bot ${this.#botToken}`, 'User-Agent': discordUserAgent },
      ...body,
      timeoutMs: this.#timeoutMs + Math.ceil(fileBytes / 1_000),
      errorMessage: discordErrorMessage,
      classify: classifyDiscordRefusal,
      retryAfterMs: discordRetryAfterMs,
    });
    const parsed = shape.safeParse(answer);
    if (!parsed.success) throw unreadable(what, parsed.error);
    return parsed.data;
  }
}
