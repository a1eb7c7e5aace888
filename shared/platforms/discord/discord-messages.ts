import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import type { DiscordApi } from './discord-api.ts';
import { messageBody } from './discord-files.ts';
import { discordNonce, nonceTrustMs, sendOnce, snowflakeBefore } from './discord-send-once.ts';

export const snowflake = z.string().regex(/^\d{1,20}$/);

/** The Message object, as far as SPS reads it. */
export const discordMessage = z.object({
  id: snowflake,
  channel_id: snowflake,
  author: z.object({ id: snowflake }),
  content: z.string().default(''),
  attachments: z.array(z.object({ id: snowflake, filename: z.string() })).default([]),
  nonce: z.union([z.string(), z.number()]).nullish(),
  reactions: z.array(z.object({ count: z.number().int().nonnegative() })).optional(),
});

export type DiscordMessage = z.infer<typeof discordMessage>;

const messageList = z.array(discordMessage);

/** One part as a message: where it goes, what it says, its files. */
export interface OutgoingMessage {
  channelId: string;
  content: string;
  media: PublishMedia[];
  spoiler: boolean;
  idempotencyKey: string;
  checkpoint: PartCheckpoint;
}

/** Whether a message the bot made is this part: its nonce when Discord shows it, else its text and file count. */
function isPart(message: DiscordMessage, part: OutgoingMessage, botId: string, nonce: string): boolean {
  if (message.author.id !== botId) return false;
  if (message.nonce !== undefined && message.nonce !== null) return String(message.nonce) === nonce;
  return message.content === part.content && message.attachments.length === part.media.length;
}

/**
 * Sends one part as a message in a text or announcement channel or a thread
 * (`POST /channels/{id}/messages`), exactly once (discord-send-once.ts): the message carries the
 * part's nonce with `enforce_nonce: true`, so a repeat within Discord's window answers with the
 * message already made; a retry later than that looks through the messages the bot made in the
 * channel since the checkpointed send (`GET /channels/{id}/messages?after=`, which needs Read
 * Message History, asked for at install) before sending again.
 */
export async function sendMessage(
  api: DiscordApi,
  part: OutgoingMessage,
  botId: () => Promise<string>,
): Promise<DiscordMessage> {
  const nonce = discordNonce(part.idempotencyKey);
  const path = `/channels/${part.channelId}/messages`;
  return sendOnce({
    checkpoint: part.checkpoint,
    trustMs: nonceTrustMs,
    now: Date.now,
    send: () => {
      const payload = { content: part.content, nonce, enforce_nonce: true };
      return api.call('POST', path, discordMessage, 'a message', messageBody(payload, part.media, part.spoiler));
    },
    find: async (sentAt) => {
      const query = { after: snowflakeBefore(sentAt), limit: '100' };
      const [mine, recent] = await Promise.all([botId(), api.call('GET', path, messageList, 'messages', {}, query)]);
      return recent.filter((message) => isPart(message, part, mine, nonce))
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))[0] ?? null;
    },
  });
}

/** The bot's latest messages in a channel, newest first. */
export async function botMessages(api: DiscordApi, channelId: string, botId: string): Promise<DiscordMessage[]> {
  const path = `/channels/${channelId}/messages`;
  const recent = await api.call('GET', path, messageList, 'messages', {}, { limit: '50' });
  return recent.filter((message) => message.author.id === botId);
}

export function readMessage(api: DiscordApi, channelId: string, messageId: string): Promise<DiscordMessage> {
  return api.call('GET', `/channels/${channelId}/messages/${messageId}`, discordMessage, 'a message');
}
