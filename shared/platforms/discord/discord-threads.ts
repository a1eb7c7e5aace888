import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import type { DiscordApi } from './discord-api.ts';
import { discordCodeOf, discordCodes } from './discord-errors.ts';
import { messageBody } from './discord-files.ts';
import { discordMessage, readMessage, snowflake, type DiscordMessage } from './discord-messages.ts';
import { sendOnce, snowflakeBefore } from './discord-send-once.ts';

/** A channel, as far as SPS reads it. */
export const discordChannel = z.object({
  id: snowflake,
  type: z.number().int(),
  guild_id: snowflake.optional(),
  name: z.string().nullish(),
  parent_id: snowflake.nullish(),
  owner_id: snowflake.nullish(),
});

export type DiscordChannel = z.infer<typeof discordChannel>;

/** Announcement (10), public (11) and private (12) threads: their messages are posted straight into them. */
export const threadTypes: ReadonlySet<number> = new Set([10, 11, 12]);
/** Forum (15) and media (16) channels: a post is a thread made with its first message. */
export const forumTypes: ReadonlySet<number> = new Set([15, 16]);

/** The checkpoint key of the thread later parts go into, once made. */
const threadKey = 'threadId';

const longestName = 100;

/**
 * A thread's name (1 to 100 characters): the post's `thread_name`, else the first line of the
 * first text that has one, cut to fit, else `fallback`.
 */
export function threadName(explicit: string | undefined, texts: string[], fallback: string): string {
  if (explicit !== undefined) return explicit;
  const line = texts.map((text) => text.split('\n').map((each) => each.trim()).find((each) => each !== '') ?? '')
    .find((each) => each !== '');
  if (line === undefined) return fallback;
  const characters = Array.from(line);
  return characters.length <= longestName ? line : `${characters.slice(0, longestName - 1).join('')}…`;
}

/**
 * The text of the message a thread hangs from, which only Discord still holds, to name the thread
 * after. A bot installed before SPS asked for Read Message History may not read it: the thread is
 * then named after the part itself rather than failing the part.
 */
async function parentText(api: DiscordApi, parent: { channelId: string; messageId: string }): Promise<string> {
  try {
    return (await readMessage(api, parent.channelId, parent.messageId)).content;
  } catch (error) {
    const code = discordCodeOf(error);
    if (code === discordCodes.missingAccess || code === discordCodes.missingPermissions) return '';
    throw error;
  }
}

/**
 * The thread later parts go into, started from the first part's message
 * (`POST /channels/{id}/messages/{id}/threads`), its id checkpointed before anything is posted
 * into it. A thread started from a message has the message's id, so when an earlier attempt
 * started it and lost the answer, Discord's refusal of a second start (160004) names it too.
 */
export async function threadFromMessage(
  api: DiscordApi,
  parent: { channelId: string; messageId: string },
  explicitName: string | undefined,
  partText: string,
  checkpoint: PartCheckpoint,
): Promise<string> {
  const saved = checkpoint.values[threadKey];
  if (saved !== undefined && saved !== '') return saved;
  let threadId: string;
  try {
    const texts = explicitName === undefined ? [await parentText(api, parent), partText] : [];
    const name = threadName(explicitName, texts, 'Thread');
    const path = `/channels/${parent.channelId}/messages/${parent.messageId}/threads`;
    threadId = (await api.call('POST', path, discordChannel, 'a thread', { json: { name } })).id;
  } catch (error) {
    if (discordCodeOf(error) !== discordCodes.threadAlreadyCreated) throw error;
    threadId = parent.messageId;
  }
  await checkpoint.save({ [threadKey]: threadId });
  return threadId;
}

const forumPostAnswer = discordChannel.extend({ message: discordMessage.optional() });
const activeThreads = z.object({ threads: z.array(discordChannel) });

export interface ForumPost {
  forumId: string;
  guildId: string;
  name: string;
  content: string;
  media: PublishMedia[];
  spoiler: boolean;
  checkpoint: PartCheckpoint;
}

/**
 * A forum or media channel's post, made with the first part as its message
 * (`POST /channels/{id}/threads` `{name, message}`); the starter message has the thread's id.
 * Discord takes no nonce here, so every retry after an unanswered attempt first looks through
 * the server's active threads for the bot's post of that name in the forum, made since the
 * checkpointed send, whose starter message holds the part's text.
 */
export async function forumPost(api: DiscordApi, post: ForumPost, botId: () => Promise<string>): Promise<string> {
  return sendOnce({
    checkpoint: post.checkpoint,
    trustMs: null,
    now: Date.now,
    send: async () => {
      const payload = { name: post.name, message: { content: post.content } };
      const body = messageBody(payload, post.media, post.spoiler, 'message');
      return (await api.call('POST', `/channels/${post.forumId}/threads`, forumPostAnswer, 'a forum post', body)).id;
    },
    find: async (sentAt) => {
      const since = BigInt(snowflakeBefore(sentAt));
      const [mine, active] = await Promise.all([
        botId(),
        api.call('GET', `/guilds/${post.guildId}/threads/active`, activeThreads, 'active threads'),
      ]);
      const candidates = active.threads.filter((thread) => thread.parent_id === post.forumId
        && thread.owner_id === mine && thread.name === post.name && BigInt(thread.id) > since);
      for (const thread of candidates) {
        const starter: DiscordMessage = await readMessage(api, thread.id, thread.id);
        if (starter.content === post.content && starter.attachments.length === post.media.length) return thread.id;
      }
      return null;
    },
  });
}
