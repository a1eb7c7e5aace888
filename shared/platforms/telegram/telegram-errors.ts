import { z } from 'zod';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';

export const provider = 'telegram';

/**
 * The Bot API's refusal: `{ok:false, error_code, description, parameters?}` (open-and-community.md
 * 10.5). `retry_after` comes with 429, `migrate_to_chat_id` when a group became a supergroup.
 */
export const telegramRefusalBody = z.object({
  ok: z.literal(false),
  error_code: z.number().int().optional(),
  description: z.string(),
  parameters: z.object({
    retry_after: z.number().nonnegative().optional(),
    migrate_to_chat_id: z.number().int().optional(),
  }).optional(),
});

export type TelegramRefusalBody = z.infer<typeof telegramRefusalBody>;

export function readRefusal(body: unknown): TelegramRefusalBody | null {
  const parsed = telegramRefusalBody.safeParse(body);
  return parsed.success ? parsed.data : null;
}

/** Telegram's own description is what the user needs to read (`Bad Request: message is too long`). */
export function telegramErrorMessage(body: unknown): string | undefined {
  const refusal = readRefusal(body);
  return refusal === null ? undefined : `Telegram: ${refusal.description}`;
}

/**
 * What SPS does about a refusal, by Telegram's code and description:
 * - 401: the bot token was revoked in @BotFather: reconnect (no refresh exists for bot tokens);
 * - 403 `not enough rights to send ...`: a chat setting refuses this kind of content (photos,
 *   videos): the post cannot go as it is, the channel itself still works;
 * - any other 403 (`bot was kicked`, `bot is not a member`, `need administrator rights`, `bot was
 *   blocked`): the bot lost its place in the chat, so nothing will post there until the user adds it
 *   back and connects again, which checks its rights: the channel is flagged;
 * - 429 and 5xx: Telegram's own trouble or flood control: later;
 * - 400 and everything else: about this message (`chat not found`, `message is too long`, `wrong
 *   file identifier`): the same request would fail again.
 */
export function classifyTelegramRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  const code = readRefusal(body)?.error_code ?? status;
  const description = readRefusal(body)?.description ?? '';
  if (code === 401) return 'disconnected';
  if (code === 403) return /not enough rights/i.test(description) ? 'permanent' : 'disconnected';
  if (code === 429 || code >= 500) return 'retryable';
  return undefined;
}

/** Flood control names its wait in the body (`parameters.retry_after`, seconds); Retry-After as a fallback. */
export function telegramRetryAfterMs(
  status: number,
  header: (name: string) => string | null,
  now: number,
  body: unknown,
): number | null {
  if (status !== 429) return null;
  const seconds = readRefusal(body)?.parameters?.retry_after;
  return seconds === undefined ? retryAfterHeaderMs(header, now) : seconds * 1000;
}

/** The supergroup a group became, when this refusal says so. */
export function migratedTo(error: unknown): number | null {
  if (!(error instanceof PlatformError)) return null;
  return readRefusal(error.body)?.parameters?.migrate_to_chat_id ?? null;
}

/**
 * A file of the post could not be read from storage while its request was being sent: the body
 * broke off before its end, and Telegram acts on none of a multipart body it did not get whole.
 */
export class FileReadFailure extends PlatformError {
  constructor(cause: unknown) {
    const message = 'SPS could not read a file of the post from storage; nothing reached Telegram';
    super({ kind: 'retryable', provider, message, cause });
    this.name = 'FileReadFailure';
  }
}

export function refused(message: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message });
}

/** An answer SPS could not read; its status says Telegram accepted the call (send-once.ts reads it so). */
export function unreadable(method: string, httpStatus: number | null = null): PlatformError {
  return unreadableAnswer(provider, `Telegram answered ${method} with a body`, { httpStatus });
}
