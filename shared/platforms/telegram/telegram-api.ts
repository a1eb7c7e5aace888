import { z } from 'zod';
import type { PublishMedia } from '../kit/platform-adapter.ts';
import { platformRequest, type PlatformRequest } from '../kit/platform-http.ts';
import {
  classifyTelegramRefusal, FileReadFailure, provider, telegramErrorMessage, telegramRetryAfterMs, unreadable,
} from './telegram-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

const success = z.object({ ok: z.literal(true), result: z.unknown() });

/** A file sent in the request's body as the multipart part `field`. */
export interface AttachedFile {
  field: string;
  file: PublishMedia;
}

/**
 * Calls Bot API methods, `POST {apiUrl}/bot<token>/<method>`: parameters as JSON, or as a
 * multipart form when files go with them (object parameters such as `reply_parameters` and
 * `media` then travel JSON-serialized, as the Bot API reads them). Every answer is `{ok, result}`
 * or a refusal (telegram-errors.ts). The token sits in the path, as the Bot API wants it; it is
 * never logged from here.
 */
export class TelegramApi {
  readonly #apiUrl: string;
  readonly #timeoutMs: number;

  constructor(apiUrl: string, timeoutMs: number) {
    this.#apiUrl = apiUrl.replace(trailingSlashes, '');
    this.#timeoutMs = timeoutMs;
  }

  async call<T>(token: string, method: string, parameters: object, shape: z.ZodType<T>): Promise<T> {
    return this.#send(method, shape, { url: this.#url(token, method), json: parameters, timeoutMs: this.#timeoutMs });
  }

  /** A send with files: the first is `files[0]`, the rest follow it in the body in order. */
  async upload<T>(
    token: string,
    method: string,
    parameters: Record<string, unknown>,
    files: readonly [AttachedFile, ...AttachedFile[]],
    shape: z.ZodType<T>,
  ): Promise<T> {
    const fields = Object.fromEntries(Object.entries(parameters).flatMap(([name, value]) => {
      if (value === undefined) return [];
      return [[name, typeof value === 'string' ? value : JSON.stringify(value)]];
    }));
    // A storage read that fails mid-body must be told apart from a lost answer (telegram-send-once.ts).
    const readFailures: unknown[] = [];
    const watched = (file: PublishMedia): PublishMedia => ({
      ...file,
      open: async () => {
        const stream = await file.open().catch((error: unknown) => {
          readFailures.push(error);
          throw error;
        });
        stream.on('error', (error) => { readFailures.push(error); });
        return stream;
      },
    });
    const [first, ...rest] = files;
    const bytes = files.reduce((sum, { file }) => sum + file.size, 0);
    try {
      return await this.#send(method, shape, {
        url: this.#url(token, method),
        multipart: {
          fields,
          fileField: first.field,
          file: watched(first.file),
          moreFiles: rest.map(({ field, file }) => ({ field, file: watched(file) })),
        },
        // Files take longer to send than a method call to answer: allow for a slow 1 MB a second.
        timeoutMs: this.#timeoutMs + Math.ceil(bytes / 1_000),
      });
    } catch (error) {
      if (readFailures.length > 0) throw new FileReadFailure(readFailures[0]);
      throw error;
    }
  }

  #url(token: string, method: string): string {
    return `${this.#apiUrl}/bot${token}/${method}`;
  }

  async #send<T>(
    method: string,
    shape: z.ZodType<T>,
    request: Pick<PlatformRequest, 'url' | 'json' | 'multipart' | 'timeoutMs'>,
  ): Promise<T> {
    const answer = await platformRequest({
      provider,
      serverName: 'Telegram',
      method: 'POST',
      ...request,
      errorMessage: telegramErrorMessage,
      classify: classifyTelegramRefusal,
      retryAfterMs: telegramRetryAfterMs,
    });
    const body = success.safeParse(answer);
    const result = shape.safeParse(body.success ? body.data.result : undefined);
    if (!result.success) throw unreadable(method, 200);
    return result.data;
  }
}
