import { DateTime, IANAZone } from 'luxon';
import type { PostingSchedule } from './posting-schedule.ts';
import { wallClockInstant } from './wall-clock-instant.ts';

/** find-slot and the queue look this many local days ahead and no further. */
export const slotSearchDays = 90;

const minuteMs = 60_000;

/** The minute an instant falls in: slots and posts match by the minute, seconds aside. */
export const slotMinute = (instant: Date): number => Math.floor(instant.getTime() / minuteMs);

/**
 * Every slot instant of the schedule after `after`, in order, over the local day of `after` and
 * the `slotSearchDays` days that follow it. Slots are wall-clock times: each local day's slots are
 * turned into instants by that day's offset (wall-clock-instant.ts has the rule for skipped and
 * repeated hours). Two slots that land on one instant (02:30 and 03:00 on a spring-forward day)
 * are one slot.
 */
export function* slotInstants(schedule: PostingSchedule, after: Date): Generator<Date> {
  const zone = IANAZone.create(schedule.timeZone);
  const times = schedule.postingSlots.map((slot) => ({
    weekday: slot.weekday,
    hour: Number(slot.time.slice(0, 2)),
    minute: Number(slot.time.slice(3, 5)),
  }));
  if (times.length === 0) return;
  const today = DateTime.fromJSDate(after, { zone });
  // Calendar days are counted in UTC, which has no gaps: the local date is all that is kept.
  const firstDay = DateTime.utc(today.year, today.month, today.day);
  let last = after.getTime();
  for (let offset = 0; offset <= slotSearchDays; offset += 1) {
    const day = firstDay.plus({ days: offset });
    const instants = times
      .filter((time) => time.weekday === day.weekday)
      .map((time) => wallClockInstant(zone, { year: day.year, month: day.month, day: day.day, ...time }).getTime())
      .sort((a, b) => a - b);
    for (const instant of instants) {
      if (instant <= last) continue;
      last = instant;
      yield new Date(instant);
    }
  }
}

/**
 * The first `count` slots after `after` that no post takes (`taken`: minutes of posts already
 * there, slotMinute), in order; fewer when the search window has no more.
 */
export function nextFreeSlots(
  schedule: PostingSchedule,
  after: Date,
  taken: ReadonlySet<number>,
  count: number,
): Date[] {
  const free: Date[] = [];
  if (count <= 0) return free;
  for (const instant of slotInstants(schedule, after)) {
    if (taken.has(slotMinute(instant))) continue;
    free.push(instant);
    if (free.length === count) break;
  }
  return free;
}
