import type { Database } from '../../db/database.ts';
import { DomainError } from '../../errors.ts';
import { findOwnedChannel } from './channels.ts';

/** find-slot looks this far ahead and no further. */
export const slotSearchDays = 90;

/**
 * The channel's next posting time (from its preferred times of day, UTC) that no post of the
 * channel already takes. One query loads the posts in the window; the search is in memory.
 */
export async function findFreeSlot(db: Database, organizationId: string, channelId: string, now: Date): Promise<Date> {
  const channel = await findOwnedChannel(db, organizationId, channelId);
  const times = [...new Set(channel.postingTimes)].filter((minutes) => minutes >= 0 && minutes < 1440).sort((a, b) => a - b);
  if (times.length === 0) throw new DomainError('conflict', 'the channel has no posting times set');
  const startOfDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const windowEnd = new Date(startOfDay + (slotSearchDays + 1) * 86_400_000);
  const taken = await db.posts.find({ channelId: channel._id, rootPostId: null, deletedAt: null, publishDate: { $gt: now, $lt: windowEnd } }, { publishDate: 1 }).lean();
  const takenMinutes = new Set(taken.map((post) => Math.floor(post.publishDate.getTime() / 60_000)));
  for (let day = 0; day <= slotSearchDays; day += 1) {
    for (const minutes of times) {
      const slot = startOfDay + day * 86_400_000 + minutes * 60_000;
      if (slot > now.getTime() && !takenMinutes.has(slot / 60_000)) return new Date(slot);
    }
  }
  throw new DomainError('conflict', `every posting time of the channel is taken for the next ${slotSearchDays} days`);
}
