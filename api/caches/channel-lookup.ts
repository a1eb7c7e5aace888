import type { Types } from 'mongoose';
import type { InvalidatedCache } from '../../shared/cache/invalidated-cache.ts';
import type { Database } from '../../shared/db/database.ts';
import type { ChannelFinder, PostingChannel } from '../../shared/domain/posts/check-channel-posts.ts';

/**
 * The channels `POST /posts` names, read through this process's cache: only what checking a post
 * needs (platform, name, text limit), never tokens. An entry depends on its channel (deleted,
 * reconnected with a new name or limit) and its organization; each of those changes empties it
 * on every api process. Channels that are not found are not cached.
 */
export function cachedChannelFinder(db: Database, cache: InvalidatedCache<PostingChannel>): ChannelFinder {
  const findOne = (organizationId: Types.ObjectId, id: Types.ObjectId): Promise<PostingChannel | null> =>
    cache.get(`${organizationId.toHexString()}:${id.toHexString()}`, async () => {
      const channel = await db.channels
        .findOne({ _id: id, organizationId, deletedAt: null }, { provider: 1, name: 1, textLimit: 1 })
        .lean<PostingChannel>();
      if (channel === null) return null;
      const value = { _id: channel._id, provider: channel.provider, name: channel.name, textLimit: channel.textLimit };
      return { value, topics: [`channel:${id.toHexString()}`, `organization:${organizationId.toHexString()}`] };
    });
  return async (organizationId, ids) => {
    const found = await Promise.all(ids.map((id) => findOne(organizationId, id)));
    return found.filter((channel) => channel !== null);
  };
}
