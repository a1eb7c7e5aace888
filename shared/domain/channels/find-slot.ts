import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { findEachById } from '../../db/equality-queries.ts';
import { DomainError } from '../../errors.ts';
import { findOwnedChannel } from './channels.ts';
import { nextFreeSlots, slotMinute, slotSearchDays } from './next-free-slot.ts';
import { scheduleOfChannel, type PostingSchedule } from './posting-schedule.ts';

export { slotSearchDays } from './next-free-slot.ts';

/**
 * Minutes the channel's posts take within the search window after `after`: one query, bounded
 * by an equality on the channel (index `{channelId, publishDate}`); the search runs in memory.
 * Every post that is not deleted takes its minute, drafts included, as find-slot always did.
 * `except` leaves out posts being moved themselves (a queued edit of a post).
 */
async function takenMinutes(
  db: Database,
  channelId: Types.ObjectId,
  after: Date,
  except: readonly Types.ObjectId[],
): Promise<Set<number>> {
  // One day more than the search: the window is counted in the channel's local days.
  const windowEnd = new Date(after.getTime() + (slotSearchDays + 2) * 86_400_000);
  const posts = await db.posts.find(
    { channelId, rootPostId: null, deletedAt: null, publishDate: { $gt: after, $lt: windowEnd } },
    { publishDate: 1 },
  ).lean();
  const skipped = new Set(except.map((id) => id.toHexString()));
  const counted = posts.filter((post) => !skipped.has(post._id.toHexString()));
  return new Set(counted.map((post) => slotMinute(post.publishDate)));
}

function scheduleIsFull(schedule: PostingSchedule, channelId: Types.ObjectId): DomainError {
  const id = channelId.toHexString();
  if (schedule.postingSlots.length === 0) {
    const message = `channel ${id} has no posting slots; set them with PUT /integrations/${id}/schedule`;
    return new DomainError('conflict', message);
  }
  const message = `every posting slot of channel ${id} is taken for the next ${slotSearchDays} days`;
  return new DomainError('conflict', message);
}

/**
 * The channel's next posting slot after `now` (in its time zone, posting-schedule.ts) that no post
 * of the channel already takes.
 */
export async function findFreeSlot(db: Database, organizationId: string, channelId: string, now: Date): Promise<Date> {
  const channel = await findOwnedChannel(db, organizationId, channelId);
  const schedule = scheduleOfChannel(channel);
  const [slot] = nextFreeSlots(schedule, now, await takenMinutes(db, channel._id, now, []), 1);
  if (slot === undefined) throw scheduleIsFull(schedule, channel._id);
  return slot;
}

/**
 * Slots for the posts of one `POST /posts` of type `queue`, in the order of `channelIds`: each
 * post takes its channel's next free slot after `after`, and posts of one request on one channel
 * take consecutive slots. Channels are read fresh (not from the api's cache): a schedule set a
 * moment ago must count. The caller holds the channels' queue-slot lock until the posts taking
 * the slots are stored (create-posts.ts): nothing in MongoDB or FerretDB 1.24 reserves a slot.
 */
export async function takeQueueSlots(
  db: Database,
  organizationId: Types.ObjectId,
  channelIds: readonly Types.ObjectId[],
  after: Date,
  except: readonly Types.ObjectId[],
): Promise<Date[]> {
  const channels = await findEachById(db.channels, channelIds, { organizationId, deletedAt: null });
  const wanted = new Map<string, number>();
  for (const id of channelIds) wanted.set(id.toHexString(), (wanted.get(id.toHexString()) ?? 0) + 1);
  const slotsByChannel = new Map(await Promise.all(channels.map(async (channel) => {
    const schedule = scheduleOfChannel(channel);
    const taken = await takenMinutes(db, channel._id, after, except);
    const count = wanted.get(channel._id.toHexString()) ?? 0;
    const slots = nextFreeSlots(schedule, after, taken, count);
    if (slots.length < count) throw scheduleIsFull(schedule, channel._id);
    return [channel._id.toHexString(), slots] as const;
  })));
  const used = new Map<string, number>();
  return channelIds.map((id) => {
    const key = id.toHexString();
    const index = used.get(key) ?? 0;
    used.set(key, index + 1);
    const slot = slotsByChannel.get(key)?.[index];
    // checkChannelPosts found every channel just before; one deleted since then is not found now.
    if (slot === undefined) throw new DomainError('not_found', `channel ${key} was not found in your organization`);
    return slot;
  });
}
