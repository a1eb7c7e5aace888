import { z } from 'zod';
import type { TelegramApi } from './telegram-api.ts';
import { refused } from './telegram-errors.ts';

export const botUser = z.object({ id: z.number().int(), is_bot: z.boolean(), username: z.string().optional() });

export const chatInfo = z.object({
  id: z.number().int(),
  type: z.enum(['private', 'group', 'supergroup', 'channel']),
  title: z.string().optional(),
  username: z.string().optional(),
  first_name: z.string().optional(),
});

export type ChatInfo = z.infer<typeof chatInfo>;

const member = z.object({ status: z.string(), can_post_messages: z.boolean().optional() });

/** `@name`, `name`, `t.me/name` or a numeric id (negative for groups and channels), as Bot API's chat_id. */
export function chatIdOf(typed: string): string {
  const value = typed.trim().replace(/^(https?:\/\/)?t\.me\//i, '');
  if (/^-?\d+$/.test(value)) return value;
  const name = value.replace(/^@/, '');
  if (/^[A-Za-z][A-Za-z0-9_]{3,31}$/.test(name)) return `@${name}`;
  throw refused('the chat must be a public @username or a numeric chat id');
}

/** Posting in a channel takes an administrator with can_post_messages; in a group any administrator will do. */
function mayPost(chatType: ChatInfo['type'], rights: z.infer<typeof member>): boolean {
  if (rights.status === 'creator') return true;
  if (rights.status !== 'administrator') return false;
  return chatType !== 'channel' || rights.can_post_messages === true;
}

export interface BotInChat {
  chat: ChatInfo;
  /** `@username` of the bot, or its id when it has none. */
  botName: string;
  /** The bot's place (creator, administrator, member, left, kicked); null in a private conversation. */
  status: string | null;
  /** What keeps the bot from posting there, said for the user; null when it may post. */
  missing: string | null;
}

/** getMe, getChat and getChatMember: who the bot is, which chat `chatId` names, and what the bot may do there. */
export async function botInChat(api: TelegramApi, token: string, chatId: string): Promise<BotInChat> {
  const me = await api.call(token, 'getMe', {}, botUser);
  const chat = await api.call(token, 'getChat', { chat_id: chatId }, chatInfo);
  const botName = me.username === undefined ? String(me.id) : `@${me.username}`;
  if (chat.type === 'private') {
    const missing = 'the chat is a private conversation; connect a channel or a group';
    return { chat, botName, status: null, missing };
  }
  const rights = await api.call(token, 'getChatMember', { chat_id: chat.id, user_id: me.id }, member);
  const what = chat.type === 'channel' ? 'an administrator allowed to post messages' : 'an administrator';
  const missing = mayPost(chat.type, rights)
    ? null
    : `the bot ${botName} is not ${what} of this ${chat.type}; promote it there first`;
  return { chat, botName, status: rights.status, missing };
}
