import { z } from 'zod';
import type { SlackApi } from './slack-api.ts';

const conversationPage = z.object({
  ok: z.literal(true),
  channels: z.array(z.object({
    id: z.string().min(1),
    name: z.string(),
    is_private: z.boolean().optional(),
    is_member: z.boolean().optional(),
  })),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

export interface SlackChannelPage {
  channels: { id: string; name: string; isPrivate: boolean; isMember: boolean }[];
  /** Slack's cursor of the next page; null after the last one. */
  nextCursor: string | null;
}

/**
 * One page of conversations.list: the public channels and the private ones the bot was invited
 * to, archived ones left out. Slack may answer fewer than `limit`, so callers follow the cursor.
 */
export async function channelPage(api: SlackApi, botToken: string, cursor: string | null): Promise<SlackChannelPage> {
  const query = {
    types: 'public_channel,private_channel',
    exclude_archived: 'true',
    limit: '200',
    ...(cursor === null ? {} : { cursor }),
  };
  const page = await api.call(botToken, 'conversations.list', { query }, conversationPage);
  const next = page.response_metadata?.next_cursor ?? '';
  return {
    channels: page.channels.map((channel) => ({
      id: channel.id,
      name: channel.name,
      isPrivate: channel.is_private === true,
      isMember: channel.is_member === true,
    })),
    nextCursor: next === '' ? null : next,
  };
}
