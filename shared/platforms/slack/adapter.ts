import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { slackConnect } from './connect.ts';
import { readSlackCredential } from './credential.ts';
import { slackChannelId, slackSettings } from './definition.ts';
import { SlackApi } from './slack-api.ts';
import { channelPage } from './slack-channels.ts';
import { provider, SlackRefusal } from './slack-errors.ts';
import { defaultShareTuning, shareFilesOnce, type ShareTuning } from './slack-file-share.ts';
import {
  authorOf, byAuthor, findMessage, parseReleaseId, permalink, releaseIdOf, sameText, slackMessage, slackText,
  type SlackMessageId,
} from './slack-messages.ts';
import { sendOnce } from './slack-send-once.ts';

const postedMessage = z.object({ ok: z.literal(true), ts: z.string().min(1) });
const joined = z.object({
  ok: z.literal(true),
  channel: z.object({ id: z.string(), name: z.string() }),
  warning: z.string().optional(),
});
const channelInfo = z.object({ ok: z.literal(true), channel: z.object({ num_members: z.number().int().optional() }) });
const reactionsAnswer = z.object({ ok: z.literal(true), message: slackMessage });
const historyAnswer = z.object({ ok: z.literal(true), messages: z.array(slackMessage) });

const channelsData = z.object({ cursor: z.string().trim().min(1, 'must not be empty').optional() });
const joinData = z.object({ channel: slackChannelId });

/** Tool input (or settings) as zod reads it, or a permanent error naming what is wrong. */
/** chat.delete's answer: the message it deleted. */
const deletedMessage = z.object({ channel: z.string(), ts: z.string() });

function toolInput<T>(schema: z.ZodType<T>, data: Record<string, unknown>, what = ''): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const message = what + parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ');
  throw new PlatformError({ kind: 'permanent', provider, message });
}

/** The post's settings; POST /posts checked them already, so a failure here means they changed since. */
function settingsOf(input: PublishInput): z.infer<typeof slackSettings> {
  return toolInput(slackSettings, input.settings, 'Slack settings: ');
}

/** Where a part goes: the settings' channel for the first part, the first part's thread for later ones. */
interface Placement {
  channel: string;
  threadTs: string | null;
}

/**
 * Publishes to Slack with the workspace's bot token (open-and-community.md, section 9): the first
 * part is a message in the channel the post's settings name (`channel`), every later part a
 * reply in its thread (`thread_ts`: always the top-level message's ts, never a reply's). A part
 * without media is a chat.postMessage, with the settings' `username`, icons, unfurling and, for
 * replies, `reply_broadcast`; a part with media shares its files in one message with the part's
 * text as `initial_comment` (slack-file-share.ts), to which those presentation settings do not
 * apply. Release ids are `channel:ts` (`channel:thread:ts` for a reply), release URLs the
 * message's permalink, built from auth.test's workspace URL read before anything is sent.
 *
 * Exactly once: chat.postMessage has no idempotency key, so the part's send time is checkpointed
 * before it and a retry reads the channel or thread back for the bot's message with the same
 * text before sending again (slack-send-once.ts); uploads and their completion are checkpointed
 * step by step and found again by file id (slack-file-share.ts).
 */
export function createSlackAdapter(
  options: AdapterOptions,
  app: PlatformApp,
  tuning: ShareTuning = defaultShareTuning,
): PlatformAdapter {
  // token_expired only asks for a refresh where the connect step stores a token that can be refreshed.
  const api = new SlackApi(app.apiUrl, options.timeoutMs, slackConnect.provider(app).refreshable);
  const tokenOf = (channel: ChannelCredentials): string => readSlackCredential(channel.accessToken).botToken;

  async function sendPart(input: PublishInput, place: Placement): Promise<PublishResult> {
    const settings = settingsOf(input);
    const token = tokenOf(input.channel);
    // Read before sending: nothing that can fail may run between Slack's accept and the engine's write.
    const author = await authorOf(api, token);
    const text = slackText(input.content);
    let ts: string;
    if (input.media.length > 0) {
      const part = { token, ...place, text, media: input.media, checkpoint: input.checkpoint, author, now: Date.now };
      ts = await shareFilesOnce(api, part, tuning);
    } else {
      const json = {
        channel: place.channel,
        text,
        ...(place.threadTs === null ? {} : { thread_ts: place.threadTs }),
        ...(place.threadTs !== null && settings.reply_broadcast === true ? { reply_broadcast: true } : {}),
        ...(settings.unfurl_links === undefined ? {} : { unfurl_links: settings.unfurl_links }),
        ...(settings.unfurl_media === undefined ? {} : { unfurl_media: settings.unfurl_media }),
        ...(settings.username === undefined ? {} : { username: settings.username }),
        ...(settings.icon_url === undefined ? {} : { icon_url: settings.icon_url }),
        ...(settings.icon_emoji === undefined ? {} : { icon_emoji: settings.icon_emoji }),
      };
      ts = await sendOnce({
        checkpoint: input.checkpoint,
        now: Date.now,
        send: async () => (await api.call(token, 'chat.postMessage', { json }, postedMessage, { accepted: true })).ts,
        find: (sinceMs) => findMessage(api, token, {
          ...place,
          sinceMs,
          author,
          matches: (message) => (message.files ?? []).length === 0 && sameText(message.text, text),
        }),
      });
    }
    const id: SlackMessageId = { channel: place.channel, ts, threadTs: place.threadTs };
    return { releaseId: releaseIdOf(id), releaseURL: permalink(author.workspaceUrl, id) };
  }

  return {
    provider,
    publish: (input: PublishInput) => {
      const settings = settingsOf(input);
      return sendPart(input, { channel: settings.channel, threadTs: null });
    },
    comment: (input: CommentInput) => {
      // Whichever part came before, every reply goes to the thread of the first part's message.
      const parent = parseReleaseId(input.parentReleaseId);
      return sendPart(input, { channel: parent.channel, threadTs: parent.threadTs ?? parent.ts });
    },

    /** The bot's latest top-level messages in the channel picked when connecting. */
    async recentContent(channel) {
      const credential = readSlackCredential(channel.accessToken);
      const author = await authorOf(api, credential.botToken);
      const query = { channel: credential.channelId, limit: '100' };
      const history = await api.call(credential.botToken, 'conversations.history', { query }, historyAnswer);
      return history.messages
        .filter((message) => byAuthor(message, author))
        .slice(0, 20)
        .map((message) => {
          const id = { channel: credential.channelId, ts: message.ts, threadTs: null };
          return { id: releaseIdOf(id), url: permalink(author.workspaceUrl, id) };
        });
    },

    /**
     * chat.delete of the bot's message (a reply in its thread alike); Slack's message_not_found
     * means it is gone already.
     */
    async remove(channel, { releaseId }) {
      const id = parseReleaseId(releaseId);
      const form = { channel: id.channel, ts: id.ts };
      try {
        await api.call(tokenOf(channel), 'chat.delete', { form }, deletedMessage);
      } catch (error) {
        if (error instanceof SlackRefusal && error.code === 'message_not_found') return;
        throw error;
      }
    },

    tools: {
      async channels(channel, data) {
        const { cursor } = toolInput(channelsData, data);
        return channelPage(api, tokenOf(channel), cursor ?? null);
      },

      async joinChannel(channel, data) {
        const wanted = toolInput(joinData, data);
        const answer = await api.call(tokenOf(channel), 'conversations.join', { json: wanted }, joined);
        return {
          id: answer.channel.id,
          name: answer.channel.name,
          alreadyMember: answer.warning?.split(',').includes('already_in_channel') === true,
        };
      },
    },

    /**
     * Slack counts no views or impressions for messages: a channel's members, and a message's
     * reactions and thread replies (SPS's own later parts among them), are what it reports.
     */
    analytics: {
      async account(channel) {
        const credential = readSlackCredential(channel.accessToken);
        const query = { channel: credential.channelId, include_num_members: 'true' };
        const info = await api.call(credential.botToken, 'conversations.info', { query }, channelInfo);
        const members = info.channel.num_members;
        return members === undefined ? [] : [{ label: 'Members', value: members }];
      },

      async post(channel, releaseId) {
        const id = parseReleaseId(releaseId);
        const query = { channel: id.channel, timestamp: id.ts, full: 'true' };
        const { message } = await api.call(tokenOf(channel), 'reactions.get', { query }, reactionsAnswer);
        const reactions = (message.reactions ?? []).reduce((total, reaction) => total + reaction.count, 0);
        return [
          { label: 'Reactions', value: reactions },
          ...(id.threadTs === null ? [{ label: 'Replies', value: message.reply_count ?? 0 }] : []),
        ];
      },
    },
  };
}
