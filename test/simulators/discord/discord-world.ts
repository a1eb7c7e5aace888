import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';

/**
 * What the Discord simulator holds: the servers (guilds) the operator's bot may be in, their
 * channels with the permissions the bot lacks there, the threads and messages made since, and
 * the checks every bot route shares (the bot token, the bot's membership, the channel's
 * permissions), answered in Discord's words: `{message, code}` with its JSON error codes.
 * Facts: /work/shared/platforms/open-and-community.md 8.2 to 8.5.
 */

/** Permissions a test can take from the bot in one channel (threads inherit their parent's). */
export type DiscordPermission =
  | 'VIEW_CHANNEL'
  | 'SEND_MESSAGES'
  | 'ATTACH_FILES'
  | 'READ_MESSAGE_HISTORY'
  | 'CREATE_PUBLIC_THREADS'
  | 'SEND_MESSAGES_IN_THREADS'
  | 'MANAGE_THREADS';

export interface SimulatedDiscordChannel {
  id: string;
  /** 0 text, 2 voice, 4 category, 5 announcement, 15 forum, 16 media; 10/11 threads. */
  type: number;
  name: string;
  /** What the bot may not do here. */
  denied?: DiscordPermission[];
}

export interface SimulatedRole {
  id: string;
  name: string;
  mentionable?: boolean;
}

export interface SimulatedMember {
  id: string;
  username: string;
  globalName?: string | null;
  nick?: string | null;
}

export interface SimulatedGuild {
  id: string;
  name: string;
  icon: string | null;
  channels: SimulatedDiscordChannel[];
  /** Largest file the bot may attach here: 10 MiB unless boosts raised it. */
  fileLimitBytes?: number;
  memberCount?: number;
  onlineCount?: number;
  roles?: SimulatedRole[];
  members?: SimulatedMember[];
}

/** A channel as the simulator keeps it: the guild's own, and threads made since. */
export interface ChannelRecord extends SimulatedDiscordChannel {
  guildId: string;
  parentId: string | null;
  /** Threads: who started it, and when. */
  ownerId: string | null;
  createdAt: number;
}

export interface AttachmentRecord {
  id: string;
  filename: string;
  size: number;
  contentType: string | null;
  description: string | null;
  bytes: Buffer;
}

export interface MessageRecord {
  id: string;
  channelId: string;
  guildId: string;
  authorId: string;
  content: string;
  nonce: string | null;
  attachments: AttachmentRecord[];
  reactions: { emoji: string; count: number }[];
  createdAt: number;
}

/** Discord's epoch (2015-01-01T00:00:00Z): a snowflake's top bits count milliseconds from it. */
export const discordEpochMs = 1_420_070_400_000;

export const defaultFileLimitBytes = 10 * 1024 * 1024;

/** Who owns every simulated server: a user other than the bot and the members a test names. */
const guildOwnerId = '80351110224678912';

export const discordError = (status: number, message: string, code: number, errors?: unknown): SimulatedAnswer =>
  ({ status, body: errors === undefined ? { message, code } : { message, code, errors } });

/** Discord's 400 for a body that breaks a field's rule: `errors` mirrors the body, `_errors` at the field. */
export function invalidFormBody(path: string[], code: string, message: string): SimulatedAnswer {
  const errors = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), { _errors: [{ code, message }] });
  return discordError(400, 'Invalid Form Body', 50_035, errors);
}

export const unauthorized = discordError(401, '401: Unauthorized', 0);
export const missingAccess = discordError(403, 'Missing Access', 50_001);
export const missingPermissions = discordError(403, 'Missing Permissions', 50_013);
export const unknownChannel = discordError(404, 'Unknown Channel', 10_003);
export const unknownMessage = discordError(404, 'Unknown Message', 10_008);

const threadTypes = new Set([10, 11, 12]);
export const isThread = (channel: ChannelRecord): boolean => threadTypes.has(channel.type);

export class DiscordWorld {
  readonly guilds: SimulatedGuild[];
  /** The operator's bot token; resetting it in the developer portal voids the old one. */
  botToken: string;
  readonly bot = { id: '1100000000000000001', username: 'SPS Bot', bot: true };
  /** Guilds the bot was added to (by the install, or `installBot`). */
  readonly botIn = new Set<string>();
  readonly channels = new Map<string, ChannelRecord>();
  readonly messages: MessageRecord[] = [];
  #sequence = 0;

  constructor(guilds: SimulatedGuild[], botToken: string) {
    this.guilds = guilds;
    this.botToken = botToken;
    for (const guild of guilds) {
      for (const channel of guild.channels) {
        this.channels.set(channel.id, { ...channel, guildId: guild.id, parentId: null, ownerId: null, createdAt: 0 });
      }
    }
  }

  /** A new snowflake: milliseconds since Discord's epoch, then a 22-bit sequence, so ids sort by time. */
  nextId(now = Date.now()): string {
    this.#sequence = (this.#sequence + 1) % 4096;
    return ((BigInt(now - discordEpochMs) << 22n) | BigInt(this.#sequence)).toString();
  }

  guild(id: string): SimulatedGuild | undefined {
    return this.guilds.find((guild) => guild.id === id);
  }

  /** What the bot may not do in a channel: a thread's are its parent's. */
  denied(channel: ChannelRecord): readonly DiscordPermission[] {
    const parent = channel.parentId === null ? undefined : this.channels.get(channel.parentId);
    return [...(channel.denied ?? []), ...(parent?.denied ?? [])];
  }

  /** The request's bot token is the operator's: a refusal otherwise. */
  authorized(request: SimulatedRequest): SimulatedAnswer | null {
    return request.headers.authorization === `Bot ${this.botToken}` ? null : unauthorized;
  }

  /**
   * The channel a bot route acts on, once the token, the bot's membership and the permissions the
   * route needs (beyond VIEW_CHANNEL, which every route needs) hold; else Discord's refusal.
   */
  access(
    request: SimulatedRequest,
    channelId: string,
    needs: DiscordPermission[] = [],
  ): ChannelRecord | SimulatedAnswer {
    const refused = this.authorized(request);
    if (refused !== null) return refused;
    const channel = this.channels.get(channelId);
    if (channel === undefined) return unknownChannel;
    const denied = this.denied(channel);
    if (!this.botIn.has(channel.guildId) || denied.includes('VIEW_CHANNEL')) return missingAccess;
    return needs.some((permission) => denied.includes(permission)) ? missingPermissions : channel;
  }

  /** The guild a bot route reads, once the token and the bot's membership hold. */
  guildAccess(request: SimulatedRequest, guildId: string): SimulatedGuild | SimulatedAnswer {
    const refused = this.authorized(request);
    if (refused !== null) return refused;
    const guild = this.guild(guildId);
    if (guild === undefined) return discordError(404, 'Unknown Guild', 10_004);
    return this.botIn.has(guild.id) ? guild : missingAccess;
  }

  /** A user as Discord shows one (the bot, a member): the fields its User object always carries. */
  userJson(user: { id: string; username: string; globalName?: string | null; bot?: boolean }): Record<string, unknown> {
    return {
      id: user.id,
      username: user.username,
      avatar: null,
      discriminator: '0',
      public_flags: 0,
      flags: 0,
      ...(user.bot === true ? { bot: true } : {}),
      banner: null,
      accent_color: null,
      global_name: user.globalName ?? null,
      avatar_decoration_data: null,
      collectibles: null,
      primary_guild: null,
    };
  }

  /**
   * The Guild object (resources/guild#guild-object), as `GET /guilds/{id}` and the bot install's
   * token answer carry it: every field Discord always sends, with a new server's settings.
   */
  guildJson(guild: SimulatedGuild): Record<string, unknown> {
    // A server whose boosts raised its file limit shows a higher tier (levels 2 and 3 as commonly cited).
    const limit = guild.fileLimitBytes ?? 0;
    const tier = limit >= 100 * 1024 * 1024 ? 3 : limit >= 50 * 1024 * 1024 ? 2 : 0;
    return {
      id: guild.id,
      name: guild.name,
      icon: guild.icon,
      description: null,
      home_header: null,
      splash: null,
      discovery_splash: null,
      features: [],
      banner: null,
      owner_id: guildOwnerId,
      application_id: null,
      region: 'deprecated',
      afk_channel_id: null,
      afk_timeout: 300,
      system_channel_id: null,
      system_channel_flags: 0,
      widget_enabled: false,
      widget_channel_id: null,
      verification_level: 0,
      roles: this.roleJson(guild),
      default_message_notifications: 0,
      mfa_level: 0,
      explicit_content_filter: 0,
      max_presences: null,
      max_members: 500_000,
      max_stage_video_channel_users: 50,
      max_video_channel_users: 25,
      vanity_url_code: null,
      premium_tier: tier,
      premium_subscription_count: tier === 0 ? 0 : tier === 2 ? 7 : 14,
      preferred_locale: 'en-US',
      rules_channel_id: null,
      safety_alerts_channel_id: null,
      public_updates_channel_id: null,
      premium_progress_bar_enabled: false,
      nsfw: false,
      nsfw_level: 0,
      emojis: [],
      stickers: [],
      incidents_data: null,
    };
  }

  /** The guild's roles as Discord lists them: @everyone (the guild's id) first. */
  roleJson(guild: SimulatedGuild): Record<string, unknown>[] {
    const everyone = { id: guild.id, name: '@everyone', mentionable: false };
    return [everyone, ...(guild.roles ?? [])].map((role, position) => ({
      id: role.id,
      name: role.name,
      permissions: '0',
      position,
      color: 0,
      colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
      hoist: false,
      managed: false,
      mentionable: role.mentionable ?? false,
      icon: null,
      unicode_emoji: null,
      flags: 0,
    }));
  }

  /** The channel object Discord answers with: a guild channel's position, a thread's metadata and counts. */
  channelJson(channel: ChannelRecord): Record<string, unknown> {
    const messages = this.messages.filter((message) => message.channelId === channel.id).length;
    const placed = isThread(channel)
      ? {
        owner_id: channel.ownerId,
        message_count: messages,
        member_count: 1,
        total_message_sent: messages,
        thread_metadata: {
          archived: false,
          auto_archive_duration: 4320,
          archive_timestamp: new Date(channel.createdAt).toISOString(),
          locked: false,
        },
      }
      : { position: Math.max(0, this.guild(channel.guildId)?.channels.findIndex(({ id }) => id === channel.id) ?? 0) };
    return {
      id: channel.id,
      type: channel.type,
      flags: 0,
      guild_id: channel.guildId,
      name: channel.name,
      parent_id: channel.parentId,
      ...placed,
    };
  }

  /** The Message object Discord answers with; `nonce` only in the answer to the send itself. */
  messageJson(message: MessageRecord, withNonce = false): Record<string, unknown> {
    return {
      id: message.id,
      type: 0,
      channel_id: message.channelId,
      author: this.userJson({ id: message.authorId, username: this.bot.username, bot: true }),
      content: message.content,
      timestamp: new Date(message.createdAt).toISOString(),
      edited_timestamp: null,
      attachments: message.attachments.map((attachment) => ({
        id: attachment.id,
        filename: attachment.filename,
        size: attachment.size,
        url: `https://cdn.discordapp.com/attachments/${message.channelId}/${attachment.id}/${attachment.filename}`,
        proxy_url: `https://media.discordapp.net/attachments/${message.channelId}/${attachment.id}/`
          + attachment.filename,
        ...(attachment.contentType === null ? {} : { content_type: attachment.contentType }),
        ...(attachment.description === null ? {} : { description: attachment.description }),
      })),
      embeds: [],
      components: [],
      mentions: [],
      mention_roles: [],
      mention_everyone: false,
      pinned: false,
      tts: false,
      flags: 0,
      ...(message.reactions.length === 0 ? {} : {
        reactions: message.reactions.map(({ emoji, count }) => ({
          count,
          count_details: { burst: 0, normal: count },
          me: false,
          me_burst: false,
          burst_colors: [],
          emoji: { id: null, name: emoji },
        })),
      }),
      ...(withNonce && message.nonce !== null ? { nonce: message.nonce } : {}),
    };
  }
}

export const isAnswer = (value: object): value is SimulatedAnswer => 'status' in value;
