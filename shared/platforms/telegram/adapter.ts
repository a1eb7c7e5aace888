import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { readTelegramCredential } from './credential.ts';
import { telegramSettings } from './definition.ts';
import { TelegramApi } from './telegram-api.ts';
import { provider } from './telegram-errors.ts';
import { sendPart, type SentMessage } from './telegram-send.ts';
import { sendOnce } from './telegram-send-once.ts';
import { telegramTools } from './telegram-tools.ts';

/** A release id is `{chat id}_{message id}`; a bare message id (copied from a link) means the channel's chat. */
export function parseReleaseId(releaseId: string): { chatId: string | null; messageId: number } {
  const match = /^(?:(-?\d+)_)?(\d+)$/.exec(releaseId.trim());
  if (match === null) {
    throw new PlatformError({ kind: 'permanent', provider, message: `${releaseId} is not a Telegram message id` });
  }
  return { chatId: match[1] ?? null, messageId: Number(match[2]) };
}

/**
 * The message's link: `t.me/<username>/<id>` in a public chat, `t.me/c/<id without -100>/<id>`
 * (members only) in a private channel or supergroup. A basic group's messages have no link: ''.
 */
export function messageUrl(message: SentMessage): string {
  const id = String(message.message_id);
  if (message.chat.username !== undefined) return `https://t.me/${message.chat.username}/${id}`;
  const chat = String(message.chat.id);
  return chat.startsWith('-100') ? `https://t.me/c/${chat.slice(4)}/${id}` : '';
}

/**
 * Publishes to the connected Telegram channel or group through the Bot API (open-and-community.md,
 * section 10) with the bot token the channel was connected with. Each part is one message: text
 * with sendMessage, one photo or video with sendPhoto / sendVideo, 2 to 10 as one album with
 * sendMediaGroup (the text is the first item's caption), files streamed from storage in a
 * multipart body. Later parts reply to the part before them (`reply_parameters`), in the same
 * chat. Text goes as plain text (no parse_mode). A caption over 1024 characters is refused by
 * the definition at POST /posts rather than split into a second message.
 *
 * Exactly once: telegram-send-once.ts (a checkpoint before the send; an unanswered send is never
 * repeated, the part becomes 'unconfirmed'). A group upgraded to a supergroup is followed to its
 * new id for every send (telegram-send.ts), and replies go to their parent's chat. The adapter
 * contract has no way to rewrite the stored channel, so the stored id stays the old one and the
 * first part of every later post pays one refused call (which posts nothing) before it follows.
 */
export function createTelegramAdapter(options: AdapterOptions, app: PlatformApp): PlatformAdapter {
  const api = new TelegramApi(app.apiUrl, options.timeoutMs);

  async function send(input: PublishInput, chatId: string, replyTo: number | null): Promise<PublishResult> {
    const settings = telegramSettings.parse(input.settings);
    const { botToken } = readTelegramCredential(input.channel.accessToken);
    return sendOnce(input.checkpoint, async () => {
      const part = { chatId, replyTo, text: input.content, media: input.media, settings };
      const message = await sendPart(api, botToken, part);
      const releaseId = `${String(message.chat.id)}_${String(message.message_id)}`;
      return { releaseId, releaseURL: messageUrl(message) };
    });
  }

  return {
    provider,

    publish(input: PublishInput) {
      return send(input, readTelegramCredential(input.channel.accessToken).chatId, null);
    },

    comment(input: CommentInput) {
      // The reply goes where its parent is: after a group's upgrade that is the supergroup, not the stored id.
      const parent = parseReleaseId(input.parentReleaseId);
      const chatId = parent.chatId ?? readTelegramCredential(input.channel.accessToken).chatId;
      return send(input, chatId, parent.messageId);
    },

    recentContent(): Promise<{ id: string; url: string }[]> {
      const message = 'a Telegram bot cannot read the messages of a chat, even its own: open the chat, copy the'
        + ' message\'s link (t.me/.../<id>) and set its id with PUT /posts/:id/release-id';
      return Promise.reject(new PlatformError({ kind: 'permanent', provider, message }));
    },

    /**
     * deleteMessage: a bot deletes its own message in a group within 48 hours of sending it, and
     * in a channel it posts to at any time; Telegram's "message to delete not found" is gone already.
     */
    async remove(channel, { releaseId }) {
      const { botToken, chatId: connected } = readTelegramCredential(channel.accessToken);
      const { chatId, messageId } = parseReleaseId(releaseId);
      try {
        const parameters = { chat_id: chatId ?? connected, message_id: messageId };
        await api.call(botToken, 'deleteMessage', parameters, z.literal(true));
      } catch (error) {
        if (error instanceof PlatformError && error.message.includes('message to delete not found')) return;
        throw error;
      }
    },

    tools: telegramTools(api),

    analytics: {
      async account(channel: ChannelCredentials) {
        const { botToken, chatId } = readTelegramCredential(channel.accessToken);
        const members = await api.call(botToken, 'getChatMemberCount', { chat_id: chatId }, z.number().int());
        return [{ label: 'Members', value: members }];
      },
      // The Bot API reports no views, reactions or forwards of a message (open-and-community.md 10.6).
      post: () => Promise.resolve([]),
    },
  };
}
