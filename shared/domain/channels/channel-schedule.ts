import type { Database } from '../../db/database.ts';
import { findOwnedChannel } from './channels.ts';
import { checkedTimeZone, scheduleOfChannel, sortedSlots, type PostingSchedule } from './posting-schedule.ts';

/** The channel's posting schedule as it counts now (an old channel's daily UTC times included). */
export async function channelSchedule(
  db: Database,
  organizationId: string,
  channelId: string,
): Promise<PostingSchedule> {
  return scheduleOfChannel(await findOwnedChannel(db, organizationId, channelId));
}

/**
 * Replaces the channel's schedule. `input` has passed postingScheduleSchema (the api's body, the
 * dashboard's form); the zone is checked against the time-zone database here, for both. The old
 * daily UTC times are removed in the same single-document update, so one field is the truth.
 * Posts already scheduled keep their dates: a schedule decides where new posts go.
 */
export async function setChannelSchedule(
  db: Database,
  organizationId: string,
  channelId: string,
  input: PostingSchedule,
): Promise<PostingSchedule> {
  const channel = await findOwnedChannel(db, organizationId, channelId);
  const timeZone = checkedTimeZone(input.timeZone);
  const postingSlots = sortedSlots(input.postingSlots).map((slot) => ({ weekday: slot.weekday, time: slot.time }));
  await db.channels.updateOne(
    { _id: channel._id, organizationId: channel.organizationId },
    { $set: { timeZone, postingSlots }, $unset: { postingTimes: 1 } },
  );
  return { timeZone, postingSlots };
}
