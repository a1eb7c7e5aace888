import { z } from 'zod';
import type { ChannelCredentials, ToolHandler } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, sessionOf, unreadable, type LemmyApi, type RateBucket } from './lemmy-api.ts';

/**
 * The communities tools the definition lists (open-and-community.md 7.8): search, the account's
 * subscriptions or the instance's lists, and resolving a remote community so the instance learns
 * its id. Each answers the ids `community_id` takes, with the flags that decide whether a post
 * can go there.
 */

const communityView = z.object({
  community: z.object({
    id: z.number().int(),
    name: z.string(),
    title: z.string(),
    actor_id: z.string(),
    nsfw: z.boolean().default(false),
    posting_restricted_to_mods: z.boolean().default(false),
  }),
  subscribed: z.string().optional(),
  counts: z.object({ subscribers: z.number() }).partial().optional(),
});
const communities = z.object({ communities: z.array(communityView) });
const resolved = z.object({ community: communityView.nullish() });

export interface CommunityEntry {
  id: number;
  name: string;
  title: string;
  /** How Lemmy users write it: `!name@host`. */
  address: string;
  url: string;
  nsfw: boolean;
  postingRestrictedToMods: boolean;
  subscribed: boolean;
  subscribers: number | null;
}

function entry(view: z.infer<typeof communityView>): CommunityEntry {
  const { community } = view;
  const host = URL.canParse(community.actor_id) ? new URL(community.actor_id).host : '';
  return {
    id: community.id,
    name: community.name,
    title: community.title,
    address: `!${community.name}@${host}`,
    url: community.actor_id,
    nsfw: community.nsfw,
    postingRestrictedToMods: community.posting_restricted_to_mods,
    subscribed: view.subscribed === 'Subscribed',
    subscribers: view.counts?.subscribers ?? null,
  };
}

function parseInput<T>(tool: string, schema: z.ZodType<T>, data: Record<string, unknown>): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'data'}: ${issue.message}`);
  throw new PlatformError({ kind: 'permanent', provider, message: `${tool}: ${problems.join('; ')}` });
}

const searchInput = z.object({ q: z.string().trim().min(1, 'give the text to search for').max(200) });
const listInput = z.object({
  type: z.enum(['Subscribed', 'Local', 'All'], 'must be Subscribed, Local or All').default('Subscribed'),
});
const resolveInput = z.object({
  name: z.string().trim().regex(/^!?[^\s@!]+@[^\s@]+$/, 'write the community as !name@host'),
});

export function communityTools(api: LemmyApi): Record<string, ToolHandler> {
  async function read(
    channel: ChannelCredentials,
    path: string,
    query: Record<string, string>,
    bucket: RateBucket = 'message',
  ): Promise<CommunityEntry[]> {
    const answer = communities.safeParse(await api.call(sessionOf(channel), { method: 'GET', path, query, bucket }));
    if (!answer.success) throw unreadable('communities');
    return answer.data.communities.map(entry);
  }

  return {
    async searchCommunities(channel, data) {
      const { q } = parseInput('searchCommunities', searchInput, data);
      const query = { q, type_: 'Communities', sort: 'Active', listing_type: 'All', limit: '50' };
      return read(channel, '/api/v3/search', query, 'search');
    },

    async listCommunities(channel, data) {
      const { type } = parseInput('listCommunities', listInput, data);
      return read(channel, '/api/v3/community/list', { type_: type, sort: 'Active', limit: '50' });
    },

    async resolveCommunity(channel, data) {
      const { name } = parseInput('resolveCommunity', resolveInput, data);
      const q = name.startsWith('!') ? name : `!${name}`;
      const query = { q };
      const answer = resolved.safeParse(await api.call(sessionOf(channel), {
        method: 'GET', path: '/api/v3/resolve_object', query, bucket: 'search',
      }));
      if (!answer.success) throw unreadable('the resolved address');
      const view = answer.data.community;
      if (view === null || view === undefined) {
        throw new PlatformError({ kind: 'permanent', provider, message: `Lemmy: ${q} is not a community` });
      }
      return entry(view);
    },
  };
}
