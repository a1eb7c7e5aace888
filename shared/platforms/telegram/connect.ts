import { z } from 'zod';
import type { ConnectContext, CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { encodeTelegramCredential } from './credential.ts';

const provider = 'telegram';

/** Bot API answers `{ok:false, error_code, description}`; the description is what the user needs to read. */
const errorBody = z.object({ ok: z.literal(false), description: z.string() });

function errorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  return parsed.success ? `Telegram: ${parsed.data.description}` : undefined;
}

const bot = z.object({ id: z.number().int(), is_bot: z.boolean(), username: z.string().optional() });

const chat = z.object({
  id: z.number().int(),
  type: z.enum(['private', 'group', 'supergroup', 'channel']),
  title: z.string().optional(),
  username: z.string().optional(),
  first_name: z.string().optional(),
});

const member = z.object({ status: z.string(), can_post_messages: z.boolean().optional() });

function refused(message: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message });
}

/** BotFather's tokens are `<bot id>:<secret>`; anything else would also change the request path. */
const botTokenPattern = /^\d+:[A-Za-z0-9_-]+$/;

/** `@name`, `name`, `t.me/name` or a numeric id (negative for groups and channels), as Bot API's chat_id. */
function chatIdOf(typed: string): string {
  const value = typed.trim().replace(/^(https?:\/\/)?t\.me\//i, '');
  if (/^-?\d+$/.test(value)) return value;
  const name = value.replace(/^@/, '');
  if (/^[A-Za-z][A-Za-z0-9_]{3,31}$/.test(name)) return `@${name}`;
  throw refused('the chat must be a public @username or a numeric chat id');
}

async function callBot(context: ConnectContext, token: string, method: string, body: object): Promise<unknown> {
  const answer = await platformRequest({
    provider,
    method: 'POST',
    url: `${context.app.apiUrl}/bot${token}/${method}`,
    json: body,
    timeoutMs: context.timeoutMs,
    errorMessage,
  });
  const parsed = z.object({ ok: z.literal(true), result: z.unknown() }).safeParse(answer);
  if (!parsed.success) throw refused(`Telegram answered ${method} with a body SPS could not read`);
  return parsed.data.result;
}

function parse<T>(schema: z.ZodType<T>, value: unknown, method: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw refused(`Telegram answered ${method} with a body SPS could not read`);
  return parsed.data;
}

/** Posting in a channel takes an administrator with can_post_messages; in a group any administrator will do. */
function mayPost(chatType: z.infer<typeof chat>['type'], rights: z.infer<typeof member>): boolean {
  if (rights.status === 'creator') return true;
  if (rights.status !== 'administrator') return false;
  return chatType !== 'channel' || rights.can_post_messages === true;
}

export const telegramConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'botToken',
      label: 'Bot token',
      kind: 'secret',
      help: 'Create a bot with @BotFather in Telegram (/newbot); it answers with the token, like 123456:ABC-DEF...',
    },
    {
      key: 'chat',
      label: 'Channel or group',
      kind: 'text',
      help: 'The public @username of the channel or group, or its numeric id (-100...); add the bot to it as an'
        + ' administrator allowed to post first.',
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    const token = (values.botToken ?? '').trim();
    if (!botTokenPattern.test(token)) {
      throw refused('this is not a Telegram bot token: @BotFather gives one like 123456:ABC-DEF...');
    }
    const chatId = chatIdOf(values.chat ?? '');

    const me = parse(bot, await callBot(context, token, 'getMe', {}), 'getMe');
    const found = parse(chat, await callBot(context, token, 'getChat', { chat_id: chatId }), 'getChat');
    if (found.type === 'private') throw refused('the chat is a private conversation; connect a channel or a group');
    const membership = await callBot(context, token, 'getChatMember', { chat_id: found.id, user_id: me.id });
    const rights = parse(member, membership, 'getChatMember');
    if (!mayPost(found.type, rights)) {
      const what = found.type === 'channel' ? 'an administrator allowed to post messages' : 'an administrator';
      const botName = me.username === undefined ? String(me.id) : `@${me.username}`;
      throw refused(`the bot ${botName} is not ${what} of this ${found.type}; promote it there, then connect again`);
    }

    const accountId = String(found.id);
    return {
      accountId,
      name: found.title ?? found.first_name ?? found.username ?? accountId,
      username: found.username === undefined ? null : `@${found.username}`,
      // The chat photo is only reachable through a file URL that contains the bot token: never store it.
      picture: null,
      instanceUrl: null,
      accessToken: encodeTelegramCredential({ botToken: token, chatId: accountId }),
      refreshToken: null,
      expiresAt: null,
    };
  },
};
