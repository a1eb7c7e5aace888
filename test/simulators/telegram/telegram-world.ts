import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { ChannelCredentials, PublishMedia } from '../../../shared/platforms/kit/platform-adapter.ts';
import { encodeTelegramCredential } from '../../../shared/platforms/telegram/credential.ts';
import type { TelegramSimulator } from './telegram-simulator.ts';

/** The bot and chats the Telegram tests post in, added to a running simulator. */
export const bot = { token: '7012345678:AAHk-simulated_token', id: 7012345678, username: 'sps_poster_bot' };

export const chats = {
  /** A public channel where the bot is an administrator allowed to post. */
  channel: -1001234567890,
  /** A private channel (no @username): links are t.me/c/<id>/<message>. */
  privateChannel: -1002222222222,
  /** A basic group: its messages have no link. */
  basicGroup: -4444444444,
  /** A group upgraded to `supergroup`: sends to it are refused with migrate_to_chat_id. */
  upgradedGroup: -5555555555,
  supergroup: -1005555555555,
  /** A channel that removed the bot. */
  kicked: -1007777777777,
  /** A supergroup where members (the bot among them) may not send media. */
  textOnly: -1008888888888,
} as const;

export function addTelegramWorld(simulator: TelegramSimulator): void {
  simulator.addBot({ ...bot, firstName: 'SPS poster' });
  const admin = new Map([[bot.id, { status: 'administrator' as const, canPostMessages: true }]]);
  const member = new Map([[bot.id, { status: 'member' as const }]]);
  simulator.addChat({
    id: chats.channel, type: 'channel', title: 'Release notes', username: 'release_notes', members: admin,
    memberCount: 1204,
  });
  simulator.addChat({ id: chats.privateChannel, type: 'channel', title: 'Private notes', members: admin });
  simulator.addChat({ id: chats.basicGroup, type: 'group', title: 'Old group', members: member });
  simulator.addChat({
    id: chats.upgradedGroup, type: 'group', title: 'Team chat', members: member, migratedTo: chats.supergroup,
  });
  simulator.addChat({ id: chats.supergroup, type: 'supergroup', title: 'Team chat', members: admin });
  simulator.addChat({
    id: chats.kicked, type: 'channel', title: 'Gone', username: 'gone_channel',
    members: new Map([[bot.id, { status: 'kicked' as const }]]),
  });
  simulator.addChat({
    id: chats.textOnly, type: 'supergroup', title: 'Text only', members: member, noMediaForMembers: true,
  });
}

/** A channel's credentials as SPS stores them after connecting `chatId` with the world's bot. */
export function channelIn(chatId: number, token: string = bot.token): ChannelCredentials {
  return {
    channelId: `telegram-${String(chatId)}`,
    accessToken: encodeTelegramCredential({ botToken: token, chatId: String(chatId) }),
    instanceUrl: null,
  };
}

/** A file from disk (or bytes), as the publish engine hands media to an adapter. */
export function mediaFrom(kind: 'image' | 'video', source: string | Buffer, fileName: string): PublishMedia {
  const bytes = typeof source === 'string' ? readFileSync(source) : source;
  return {
    kind,
    mimeType: kind === 'image' ? 'image/png' : 'video/mp4',
    size: bytes.length,
    fileName,
    alt: null,
    url: `http://127.0.0.1/uploads/${fileName}`,
    open: () => Promise.resolve(Readable.from([bytes])),
  };
}
