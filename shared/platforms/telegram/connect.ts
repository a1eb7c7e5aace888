import type { CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { encodeTelegramCredential } from './credential.ts';
import { TelegramApi } from './telegram-api.ts';
import { botInChat, chatIdOf } from './telegram-chat.ts';
import { refused } from './telegram-errors.ts';

/** BotFather's tokens are `<bot id>:<secret>`; anything else would also change the request path. */
const botTokenPattern = /^\d+:[A-Za-z0-9_-]+$/;

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
    const api = new TelegramApi(context.app.apiUrl, context.timeoutMs);
    const { chat, missing } = await botInChat(api, token, chatIdOf(values.chat ?? ''));
    if (missing !== null) throw refused(missing);

    const accountId = String(chat.id);
    return {
      accountId,
      name: chat.title ?? chat.first_name ?? chat.username ?? accountId,
      username: chat.username === undefined ? null : `@${chat.username}`,
      // The chat photo is only reachable through a file URL that contains the bot token: never store it.
      picture: null,
      instanceUrl: null,
      accessToken: encodeTelegramCredential({ botToken: token, chatId: accountId }),
      refreshToken: null,
      expiresAt: null,
    };
  },
};
