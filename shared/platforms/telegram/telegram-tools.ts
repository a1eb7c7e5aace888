import { z } from 'zod';
import type { ToolHandler } from '../kit/platform-adapter.ts';
import { readTelegramCredential } from './credential.ts';
import type { TelegramApi } from './telegram-api.ts';
import { botInChat, chatIdOf, chatInfo, type BotInChat } from './telegram-chat.ts';
import { refused } from './telegram-errors.ts';

const connectData = z.object({
  code: z.string().trim().regex(/^[A-Za-z0-9_-]{4,64}$/, 'code must be 4 to 64 letters, digits, - or _'),
});

const rightsData = z.object({
  chat: z.string().trim().min(1, 'chat must be a chat id or an @username').optional(),
});

/** A text message as getUpdates hands it: in a group (`message`) or a channel (`channel_post`). */
const chatMessage = z.object({ message_id: z.number().int(), chat: chatInfo, text: z.string().optional() });
const updates = z.array(z.object({
  update_id: z.number().int(),
  message: chatMessage.optional(),
  channel_post: chatMessage.optional(),
}));

function parsed<T>(schema: z.ZodType<T>, data: Record<string, unknown>): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw refused(result.error.issues.map((issue) => issue.message).join('; '));
}

/** `/connect CODE`, `/connect@bot CODE` (groups address commands to a bot so) or the bare code. */
function carriesCode(text: string, code: string): boolean {
  const words = text.trim().split(/\s+/);
  if (words.length === 1) return words[0] === code;
  return words.length === 2 && /^\/connect(@\w+)?$/i.test(words[0] ?? '') && words[1] === code;
}

function present(found: BotInChat): Record<string, unknown> {
  const { chat } = found;
  return {
    chatId: String(chat.id),
    title: chat.title ?? chat.first_name ?? null,
    type: chat.type,
    username: chat.username === undefined ? null : `@${chat.username}`,
    botStatus: found.status,
    canPost: found.missing === null,
    problem: found.missing,
  };
}

/**
 * The tools the definition declares (open-and-community.md 10.1 and 10.8):
 * - connectChat: the chat where someone sent `/connect <code>` to the bot, read from getUpdates
 *   (messages and channel posts), with the bot's rights there. Updates are read without an
 *   offset, so none is confirmed and nothing another reader of the bot expects is consumed; the
 *   code message is left in the chat (deleting it would take another right).
 * - botRights: whether the bot may post in a chat (the connected one unless `chat` names another).
 */
export function telegramTools(api: TelegramApi): Record<string, ToolHandler> {
  return {
    async connectChat(channel, data) {
      const { code } = parsed(connectData, data);
      const { botToken } = readTelegramCredential(channel.accessToken);
      const allowed = { allowed_updates: ['message', 'channel_post'], limit: 100, timeout: 0 };
      const received = await api.call(botToken, 'getUpdates', allowed, updates);
      const posts = received.flatMap((update) => [update.message, update.channel_post]);
      const match = posts.filter((post) => post !== undefined && carriesCode(post.text ?? '', code)).at(-1);
      if (match === undefined) {
        throw refused(`no message with this code has reached the bot: send "/connect ${code}" in the channel or`
          + ' group, where the bot must be an administrator, then try again');
      }
      return present(await botInChat(api, botToken, String(match.chat.id)));
    },

    async botRights(channel, data) {
      const { chat } = parsed(rightsData, data);
      const credential = readTelegramCredential(channel.accessToken);
      const chatId = chat === undefined ? credential.chatId : chatIdOf(chat);
      return present(await botInChat(api, credential.botToken, chatId));
    },
  };
}
