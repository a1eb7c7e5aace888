import { Readable } from 'node:stream';
import { connectionPolicyFor } from '../../../shared/net/connection-policy.ts';
import { createDiscordAdapter } from '../../../shared/platforms/discord/adapter.ts';
import { encodeDiscordCredential } from '../../../shared/platforms/discord/credential.ts';
import type {
  ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishMedia,
} from '../../../shared/platforms/kit/platform-adapter.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../support/part-checkpoint.ts';
import type { RunningDiscordSimulator } from './discord-simulator.ts';
import type { SimulatedGuild } from './discord-world.ts';

/**
 * The servers Discord tests publish to: Ada's, whose channels cover every kind a post can meet
 * (text, announcement, forum, voice, and text channels where the bot lacks a permission), and
 * another server the bot is also in, which Ada's channels must never reach.
 */
export const adaGuildId = '41771983423143937';

export const adaChannels = {
  general: '1200000000000000001',
  news: '1200000000000000002',
  ideas: '1200000000000000003',
  voice: '1200000000000000004',
  readOnly: '1200000000000000005',
  hidden: '1200000000000000006',
  noThreads: '1200000000000000007',
  noFiles: '1200000000000000008',
  noHistory: '1200000000000000009',
} as const;

export function adaGuild(): SimulatedGuild {
  return {
    id: adaGuildId,
    name: 'Ada’s server',
    icon: 'a1b2c3',
    memberCount: 1_234,
    onlineCount: 56,
    channels: [
      { id: adaChannels.general, type: 0, name: 'general' },
      { id: adaChannels.news, type: 5, name: 'news' },
      { id: adaChannels.ideas, type: 15, name: 'ideas' },
      { id: adaChannels.voice, type: 2, name: 'Lounge' },
      { id: adaChannels.readOnly, type: 0, name: 'read-only', denied: ['SEND_MESSAGES'] },
      { id: adaChannels.hidden, type: 0, name: 'staff', denied: ['VIEW_CHANNEL'] },
      { id: adaChannels.noThreads, type: 0, name: 'no-threads', denied: ['CREATE_PUBLIC_THREADS'] },
      { id: adaChannels.noFiles, type: 0, name: 'no-files', denied: ['ATTACH_FILES'] },
      { id: adaChannels.noHistory, type: 0, name: 'no-history', denied: ['READ_MESSAGE_HISTORY'] },
      { id: '1200000000000000010', type: 4, name: 'Text Channels' },
    ],
    roles: [
      { id: '1300000000000000001', name: 'Moderators', mentionable: true },
      { id: '1300000000000000002', name: 'Readers' },
    ],
    members: [
      { id: '1400000000000000001', username: 'ada', globalName: 'Ada Lovelace', nick: null },
      { id: '1400000000000000002', username: 'adam', globalName: null, nick: 'Adam S.' },
      { id: '1400000000000000003', username: 'grace', globalName: 'Grace Hopper', nick: null },
    ],
  };
}

export const otherGuildId = '51771983423143937';
export const otherChannel = '1500000000000000001';

export function otherGuild(): SimulatedGuild {
  const channels = [{ id: otherChannel, type: 0, name: 'general' }];
  return { id: otherGuildId, name: 'Someone else’s server', icon: null, channels };
}

/** A file of the library as the publish engine hands it over, opened from bytes in memory. */
export function memoryMedia(fileName: string, bytes: Buffer, extra: Partial<PublishMedia> = {}): PublishMedia {
  return {
    kind: 'image',
    mimeType: 'image/png',
    size: bytes.length,
    fileName,
    alt: null,
    url: `https://media.example/${fileName}`,
    open: () => Promise.resolve(Readable.from([bytes])),
    ...extra,
  };
}

/** The adapter SPS builds for Discord, pointed at the simulator, with the operator's bot token (or another). */
export function discordAdapterFor(
  discord: RunningDiscordSimulator,
  botToken: string | null = discord.botToken,
): PlatformAdapter {
  const app = {
    clientId: discord.clientId,
    clientSecret: discord.clientSecret,
    botToken,
    apiUrl: `${discord.url}/api`,
    authUrl: discord.url,
    tokenUrl: `${discord.url}/api`,
  };
  return createDiscordAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, app);
}

/** Ada's channel as connected: her server, #general. */
export const adaCredentials: ChannelCredentials = {
  channelId: 'sps-channel-1',
  accessToken: encodeDiscordCredential({ guildId: adaGuildId, channelId: adaChannels.general }),
  instanceUrl: null,
};

export type TestPart = PublishInput & { checkpoint: MemoryCheckpoint };

type PartExtras = Partial<Omit<PublishInput, 'checkpoint'>> & { checkpoint?: MemoryCheckpoint };

let parts = 0;

/** A post part with a key of its own and an empty checkpoint, posting in `settings.channel` (#general unless set). */
export function partOf(content: string, settings: Record<string, unknown> = {}, extra: PartExtras = {}): TestPart {
  parts += 1;
  return {
    channel: adaCredentials,
    content,
    media: [],
    settings: { channel: adaChannels.general, ...settings },
    idempotencyKey: `sps-post-discord-${String(parts)}`,
    checkpoint: memoryCheckpoint(),
    ...extra,
  };
}

/** A later part answering `parentReleaseId`, with the first part's settings. */
export function replyOf(
  parentReleaseId: string,
  content: string,
  settings: Record<string, unknown> = {},
  extra: PartExtras = {},
): TestPart & CommentInput {
  return { ...partOf(content, settings, extra), parentReleaseId };
}
