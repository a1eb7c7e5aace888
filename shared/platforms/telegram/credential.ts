import { z } from 'zod';

/** What a Telegram channel's access token holds: the bot that posts and the chat it posts in. */
export interface TelegramCredential {
  botToken: string;
  /** The numeric chat id, which stays the same when the channel's @username changes. */
  chatId: string;
}

const credential = z.object({ botToken: z.string().min(1), chatId: z.string().min(1) });

export function encodeTelegramCredential(value: TelegramCredential): string {
  return JSON.stringify(value);
}

/** Reads back the credential connect saved; throws when the stored value is not one. */
export function readTelegramCredential(accessToken: string): TelegramCredential {
  return credential.parse(JSON.parse(accessToken));
}
