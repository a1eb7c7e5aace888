import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { readDiscordCredential } from './credential.ts';
import { discordSettings } from './definition.ts';
import { DiscordApi } from './discord-api.ts';
import { refused } from './discord-errors.ts';
import { botMessages, readMessage, sendMessage, snowflake } from './discord-messages.ts';
import {
  discordChannel, forumPost, forumTypes, threadFromMessage, threadName, threadTypes, type DiscordChannel,
} from './discord-threads.ts';
import { discordTools } from './discord-tools.ts';
import { removedEvenIfGone } from '../kit/platform-removal.ts';

/** Text (0) and announcement (5) channels take messages; a post there starts a thread for later parts. */
const messageTypes: ReadonlySet<number> = new Set([0, 5]);

const botUser = z.object({ id: snowflake });
const guildCounts = z.object({ approximate_member_count: z.number().int().nonnegative().optional() });

/** A release id is `{channel}_{message}`: the channel is the thread for parts posted into one. */
function parseReleaseId(releaseId: string): { channelId: string; messageId: string } {
  const match = /^(\d{1,20})_(\d{1,20})$/.exec(releaseId);
  if (match?.[1] === undefined || match[2] === undefined) throw refused(`${releaseId} is not a Discord message id`);
  return { channelId: match[1], messageId: match[2] };
}

function release(guildId: string, channelId: string, messageId: string): PublishResult {
  return {
    releaseId: `${channelId}_${messageId}`,
    releaseURL: `https://discord.com/channels/${guildId}/${channelId}/${messageId}`,
  };
}

function settingsOf(input: PublishInput): z.infer<typeof discordSettings> {
  const parsed = discordSettings.safeParse(input.settings);
  if (!parsed.success) {
    throw refused(`Discord settings: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ')}`);
  }
  return parsed.data;
}

/**
 * Publishes to Discord as the operator's bot (open-and-community.md, section 8), in the channel
 * the post's `channel` setting names, which must be in the server the channel was connected in
 * (the bot is shared by every organization, so the server is checked before anything is sent):
 * - text and announcement channels (and a thread named directly) get the first part as a
 *   message (`POST /channels/{id}/messages`, JSON or multipart with `files[n]`); the second part
 *   starts a thread from it (named `thread_name`, or after the first message's text), whose id
 *   is checkpointed, and every later part is a message in that thread;
 * - forum and media channels get the first part as a post (`POST /channels/{id}/threads` with its
 *   message) and later parts as messages in it.
 * Files are streamed from storage; `spoiler_media` names them `SPOILER_...`.
 *
 * Exactly once: each message carries a nonce derived from the part's idempotency key with
 * `enforce_nonce`, so a repeat within Discord's window returns the message already made; the
 * send is checkpointed first, and a retry later than that window (or any retry of a forum post,
 * which takes no nonce) looks for what the bot made since before sending again
 * (discord-send-once.ts). The release id and URL need nothing read after Discord's accept.
 */
export function createDiscordAdapter(options: AdapterOptions, app: PlatformApp): PlatformAdapter {
  const api = new DiscordApi(app.apiUrl, app.botToken, options.timeoutMs);
  let botId: string | null = null;

  /** The bot's user id, which its messages carry as author: read once, when a look-up first needs it. */
  async function bot(): Promise<string> {
    botId ??= (await api.call('GET', '/users/@me', botUser, 'the bot user')).id;
    return botId;
  }

  /** The channel to post in, once it is known to be in the connected server. */
  async function channelIn(channelId: string, guildId: string): Promise<DiscordChannel> {
    const channel = await api.call('GET', `/channels/${channelId}`, discordChannel, 'a channel');
    if (channel.guild_id !== guildId) {
      throw refused(`Discord channel ${channelId} is not in the server this channel was connected in; `
        + 'pick one of its channels (see the channels tool)');
    }
    return channel;
  }

  async function publish(input: PublishInput): Promise<PublishResult> {
    const settings = settingsOf(input);
    const { guildId } = readDiscordCredential(input.channel.accessToken);
    const target = await channelIn(settings.channel, guildId);
    const spoiler = settings.spoiler_media === true;
    if (forumTypes.has(target.type)) {
      const name = threadName(settings.thread_name, [input.content], input.media[0]?.fileName ?? 'Post');
      const post = { forumId: target.id, guildId, name, content: input.content, media: input.media, spoiler };
      const threadId = await forumPost(api, { ...post, checkpoint: input.checkpoint }, bot);
      return release(guildId, threadId, threadId);
    }
    if (!messageTypes.has(target.type) && !threadTypes.has(target.type)) {
      throw refused(`Discord channel #${target.name ?? target.id} takes no posts: pick a text, announcement or `
        + 'forum channel (see the channels tool)');
    }
    const message = await sendMessage(api, { ...input, channelId: target.id, spoiler }, bot);
    return release(guildId, message.channel_id, message.id);
  }

  /** Where a later part goes: the thread its parent is in, or the one started from the first message. */
  async function threadOf(input: CommentInput, settings: z.infer<typeof discordSettings>, guildId: string) {
    const parent = parseReleaseId(input.parentReleaseId);
    // Part 3 on, and a forum post's parts: the parent already sits in the thread.
    if (parent.channelId !== settings.channel) return parent.channelId;
    const root = await channelIn(parent.channelId, guildId);
    if (threadTypes.has(root.type)) return root.id;
    return threadFromMessage(api, parent, settings.thread_name, input.content, input.checkpoint);
  }

  async function comment(input: CommentInput): Promise<PublishResult> {
    const settings = settingsOf(input);
    const { guildId } = readDiscordCredential(input.channel.accessToken);
    const threadId = await threadOf(input, settings, guildId);
    const spoiler = settings.spoiler_media === true;
    const message = await sendMessage(api, { ...input, channelId: threadId, spoiler }, bot);
    return release(guildId, message.channel_id, message.id);
  }

  return {
    provider: 'discord',
    publish,
    comment,

    /** The bot's latest messages in the connected channel. */
    async recentContent(channel: ChannelCredentials) {
      const { guildId, channelId } = readDiscordCredential(channel.accessToken);
      const messages = await botMessages(api, channelId, await bot());
      return messages.map((message) => {
        const { releaseId, releaseURL } = release(guildId, message.channel_id, message.id);
        return { id: releaseId, url: releaseURL };
      });
    },

    /**
     * A message: DELETE /channels/{channel}/messages/{message} (the bot's own, no permission
     * needed). A forum post, whose release names its thread twice: DELETE /channels/{thread}, the
     * thread with its messages (MANAGE_THREADS). 10008 Unknown Message / 10003 Unknown Channel: gone.
     */
    async remove(_channel, { releaseId }) {
      const { channelId, messageId } = parseReleaseId(releaseId);
      const path = channelId === messageId ? `/channels/${channelId}` : `/channels/${channelId}/messages/${messageId}`;
      await removedEvenIfGone(() => api.call('DELETE', path, z.unknown(), 'the deletion'));
    },

    tools: discordTools(api),

    /**
     * Discord counts nothing about a bot's message but its reactions, and nothing about a server
     * a bot may read but its approximate member count: those are the counters.
     */
    analytics: {
      async account(channel) {
        const { guildId } = readDiscordCredential(channel.accessToken);
        const query = { with_counts: 'true' };
        const guild = await api.call('GET', `/guilds/${guildId}`, guildCounts, 'a server', {}, query);
        const members = guild.approximate_member_count;
        return members === undefined ? [] : [{ label: 'Members', value: members }];
      },

      async post(_channel, releaseId) {
        const { channelId, messageId } = parseReleaseId(releaseId);
        const message = await readMessage(api, channelId, messageId);
        const reactions = (message.reactions ?? []).reduce((sum, reaction) => sum + reaction.count, 0);
        return [{ label: 'Reactions', value: reactions }];
      },
    },
  };
}
