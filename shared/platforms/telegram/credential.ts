import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/** What a Telegram channel's access token holds: the bot that posts and the chat it posts in. */
const credential = z.object({
  botToken: z.string().min(1),
  /** The numeric chat id, which stays the same when the channel's @username changes. */
  chatId: z.string().min(1),
});

export type TelegramCredential = z.infer<typeof credential>;

export const { encode: encodeTelegramCredential, read: readTelegramCredential } = storedCredential(credential, {
  provider: 'telegram', what: 'Telegram credential', reconnect: 'connect the chat again',
});
