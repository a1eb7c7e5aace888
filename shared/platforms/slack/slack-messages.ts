import { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import type { SlackApi } from './slack-api.ts';
import { provider } from './slack-errors.ts';

/** Who posts for the token: its bot user (messages name it as `user`, and the bot as `bot_id`). */
export interface SlackAuthor {
  userId: string;
  botId: string | null;
  /** `https://<workspace>.slack.com/`, where permalinks start. */
  workspaceUrl: string;
}

const authTest = z.object({
  ok: z.literal(true),
  url: z.url(),
  user_id: z.string().min(1),
  bot_id: z.string().min(1).optional(),
});

export async function authorOf(api: SlackApi, token: string): Promise<SlackAuthor> {
  const me = await api.call(token, 'auth.test', { query: {} }, authTest);
  return { userId: me.user_id, botId: me.bot_id ?? null, workspaceUrl: me.url.endsWith('/') ? me.url : `${me.url}/` };
}

/** One message of a channel, a thread or a reactions.get answer, as far as SPS reads it. */
export const slackMessage = z.object({
  ts: z.string().min(1),
  text: z.string().default(''),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  thread_ts: z.string().optional(),
  reply_count: z.number().int().optional(),
  files: z.array(z.object({ id: z.string() }).loose()).optional(),
  reactions: z.array(z.object({ name: z.string(), count: z.number().int() }).loose()).optional(),
}).loose();

export type SlackMessage = z.infer<typeof slackMessage>;

const messagePage = z.object({
  ok: z.literal(true),
  messages: z.array(slackMessage),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

/**
 * A message's id: its channel and ts, and for a reply the ts of its thread's top-level message,
 * which every later reply and every read of the thread needs (Slack threads never nest).
 */
export interface SlackMessageId {
  channel: string;
  ts: string;
  threadTs: string | null;
}

/** `C0123:1712345678.000100`, and for a reply `C0123:<thread ts>:<own ts>`. */
export function releaseIdOf(id: SlackMessageId): string {
  return id.threadTs === null ? `${id.channel}:${id.ts}` : `${id.channel}:${id.threadTs}:${id.ts}`;
}

export function parseReleaseId(releaseId: string): SlackMessageId {
  const match = /^([CGD][A-Z0-9]+):(\d+\.\d+)(?::(\d+\.\d+))?$/.exec(releaseId);
  if (match === null) {
    throw new PlatformError({ kind: 'permanent', provider, message: `${releaseId} is not a Slack message id` });
  }
  const [, channel = '', first = '', second] = match;
  return second === undefined ? { channel, ts: first, threadTs: null } : { channel, ts: second, threadTs: first };
}

/** The link Slack's "Copy link" gives: `p` and the ts without its dot; a reply names its thread. */
export function permalink(workspaceUrl: string, id: SlackMessageId): string {
  const link = `${workspaceUrl}archives/${id.channel}/p${id.ts.replace('.', '')}`;
  return id.threadTs === null ? link : `${link}?thread_ts=${id.threadTs}&cid=${id.channel}`;
}

/**
 * The text as SPS sends it. Slack reads `&`, `<` and `>` as markup (`<!channel>` pings everyone,
 * `<url|label>` hides a link), so its formatting guide asks for them escaped: a post's text
 * shows as written.
 */
export function slackText(content: string): string {
  return content.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Slack stores a bare link it recognized as `<url>`: read back, the link is unwrapped again. */
function unwrapLinks(text: string): string {
  return text.replace(/<((?:https?|mailto):[^|>]+)(?:\|[^>]*)?>/g, '$1').trim();
}

export const sameText = (stored: string, sent: string): boolean => unwrapLinks(stored) === unwrapLinks(sent);

/** Our clock and Slack's may differ by this much; the window only bounds how far back the look-up reads. */
const clockSlackMs = 2 * 60_000;

/** At most this many pages of 200 messages are read: a look-up covers minutes, not the channel's past. */
const maxPages = 5;

export interface MessageSearch {
  channel: string;
  /** The thread to read (conversations.replies); null for the channel's top level (conversations.history). */
  threadTs: string | null;
  /** When the earlier attempt was about to send (ms). */
  sinceMs: number;
  author: SlackAuthor;
  matches(message: SlackMessage): boolean;
}

/** Whether the app's bot posted the message. */
export const byAuthor = (message: SlackMessage, author: SlackAuthor): boolean =>
  message.user === author.userId || (author.botId !== null && message.bot_id === author.botId);

/**
 * The ts of the newest message the app's bot posted since `sinceMs` (less the clock slack) that
 * `matches`, or null: conversations.history for the channel's top level, conversations.replies
 * for a thread (its top-level message, which replies list first, never counts).
 */
export async function findMessage(api: SlackApi, token: string, search: MessageSearch): Promise<string | null> {
  const oldest = (Math.max(0, search.sinceMs - clockSlackMs) / 1000).toFixed(6);
  const method = search.threadTs === null ? 'conversations.history' : 'conversations.replies';
  let cursor: string | null = null;
  let found: string | null = null;
  for (let count = 0; count < maxPages; count += 1) {
    const query: Record<string, string> = {
      channel: search.channel,
      oldest,
      limit: '200',
      ...(search.threadTs === null ? {} : { ts: search.threadTs }),
      ...(cursor === null ? {} : { cursor }),
    };
    const page = await api.call(token, method, { query }, messagePage);
    for (const message of page.messages) {
      if (message.ts === search.threadTs || !byAuthor(message, search.author) || !search.matches(message)) continue;
      if (found === null || Number(message.ts) > Number(found)) found = message.ts;
    }
    const next = page.response_metadata?.next_cursor ?? '';
    if (next === '') break;
    cursor = next;
  }
  return found;
}
