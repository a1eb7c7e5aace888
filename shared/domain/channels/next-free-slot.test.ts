import { IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../errors.ts';
import { nextFreeSlots, slotInstants, slotMinute } from './next-free-slot.ts';
import {
  checkedTimeZone, postingScheduleSchema, scheduleOfChannel, type PostingSchedule,
} from './posting-schedule.ts';
import { wallClockInstant, type WallClock } from './wall-clock-instant.ts';

const everyDay = (time: string): PostingSchedule['postingSlots'] =>
  [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, time }));

/** The first `count` slot instants after `after`, as ISO strings. */
function firstSlots(schedule: PostingSchedule, after: string, count: number): string[] {
  return nextFreeSlots(schedule, new Date(after), new Set(), count).map((slot) => slot.toISOString());
}

/** The instant `zone`'s clocks show `local` (`YYYY-MM-DD HH:MM`), as an ISO string. */
function instant(zone: string, local: string): string {
  const [year, month, day, hour, minute] = (local.match(/\d+/g) ?? []).map(Number);
  const wall: WallClock = { year: year ?? 0, month: month ?? 0, day: day ?? 0, hour: hour ?? 0, minute: minute ?? 0 };
  return wallClockInstant(IANAZone.create(zone), wall).toISOString();
}

describe('wall-clock times across daylight-saving changes (the documented rule)', () => {
  it('reads ordinary times with the offset of their day', () => {
    expect(instant('Europe/Berlin', '2025-01-15 09:00')).toBe('2025-01-15T08:00:00.000Z');
    expect(instant('Europe/Berlin', '2025-07-15 09:00')).toBe('2025-07-15T07:00:00.000Z');
    expect(instant('America/New_York', '2025-01-15 09:00')).toBe('2025-01-15T14:00:00.000Z');
    expect(instant('Asia/Kolkata', '2025-01-15 09:00')).toBe('2025-01-15T03:30:00.000Z');
  });

  it('moves a time the clocks skip to the first instant after the gap (the moment of the change)', () => {
    // Berlin, 30 March 2025: 02:00 CET became 03:00 CEST at 01:00 UTC.
    expect(instant('Europe/Berlin', '2025-03-30 02:30')).toBe('2025-03-30T01:00:00.000Z');
    expect(instant('Europe/Berlin', '2025-03-30 02:00')).toBe('2025-03-30T01:00:00.000Z');
    expect(instant('Europe/Berlin', '2025-03-30 03:00')).toBe('2025-03-30T01:00:00.000Z');
    // New York, 9 March 2025: 02:00 EST became 03:00 EDT at 07:00 UTC.
    expect(instant('America/New_York', '2025-03-09 02:59')).toBe('2025-03-09T07:00:00.000Z');
  });

  it('takes the first of the two occurrences of a time the clocks show twice', () => {
    // Berlin, 26 October 2025: 03:00 CEST became 02:00 CET at 01:00 UTC; 02:30 comes at 00:30 and 01:30 UTC.
    expect(instant('Europe/Berlin', '2025-10-26 02:30')).toBe('2025-10-26T00:30:00.000Z');
    expect(instant('Europe/Berlin', '2025-10-26 03:00')).toBe('2025-10-26T02:00:00.000Z');
    // New York, 2 November 2025: 02:00 EDT became 01:00 EST at 06:00 UTC; 01:30 comes at 05:30 and 06:30 UTC.
    expect(instant('America/New_York', '2025-11-02 01:30')).toBe('2025-11-02T05:30:00.000Z');
    expect(instant('America/New_York', '2025-11-02 00:59')).toBe('2025-11-02T04:59:00.000Z');
  });
});

describe('slots of a weekly schedule in the channel\'s zone', () => {
  it('keeps a 09:00 slot at 09:00 local across spring-forward in Europe/Berlin', () => {
    const schedule = { timeZone: 'Europe/Berlin', postingSlots: everyDay('09:00') };
    expect(firstSlots(schedule, '2025-03-28T12:00:00Z', 4)).toEqual([
      '2025-03-29T08:00:00.000Z', '2025-03-30T07:00:00.000Z', '2025-03-31T07:00:00.000Z', '2025-04-01T07:00:00.000Z',
    ]);
  });

  it('keeps a 09:00 slot at 09:00 local across fall-back in Europe/Berlin', () => {
    const schedule = { timeZone: 'Europe/Berlin', postingSlots: everyDay('09:00') };
    expect(firstSlots(schedule, '2025-10-25T00:00:00Z', 3)).toEqual([
      '2025-10-25T07:00:00.000Z', '2025-10-26T08:00:00.000Z', '2025-10-27T08:00:00.000Z',
    ]);
  });

  it('keeps a 09:00 slot at 09:00 local across both changes in America/New_York', () => {
    const schedule = { timeZone: 'America/New_York', postingSlots: everyDay('09:00') };
    expect(firstSlots(schedule, '2025-03-08T00:00:00Z', 2))
      .toEqual(['2025-03-08T14:00:00.000Z', '2025-03-09T13:00:00.000Z']);
    expect(firstSlots(schedule, '2025-11-01T00:00:00Z', 2))
      .toEqual(['2025-11-01T13:00:00.000Z', '2025-11-02T14:00:00.000Z']);
  });

  it('gives a skipped-hour slot the moment of the change, and one slot for two that land there', () => {
    const schedule = { timeZone: 'Europe/Berlin', postingSlots: [...everyDay('02:30'), ...everyDay('03:00')] };
    expect(firstSlots(schedule, '2025-03-29T12:00:00Z', 3)).toEqual([
      '2025-03-30T01:00:00.000Z', '2025-03-31T00:30:00.000Z', '2025-03-31T01:00:00.000Z',
    ]);
  });

  it('gives a repeated-hour slot its first occurrence only, never the second', () => {
    const schedule = { timeZone: 'America/New_York', postingSlots: everyDay('01:30') };
    expect(firstSlots(schedule, '2025-11-02T05:00:00Z', 1)).toEqual(['2025-11-02T05:30:00.000Z']);
    // Between the two occurrences the day's slot has passed: the next is the following night.
    expect(firstSlots(schedule, '2025-11-02T06:00:00Z', 1)).toEqual(['2025-11-03T06:30:00.000Z']);
  });

  it('takes weekdays in the channel\'s zone, not in UTC', () => {
    // Monday 00:30 in Tokyo is still Sunday in UTC.
    const schedule = { timeZone: 'Asia/Tokyo', postingSlots: [{ weekday: 1, time: '00:30' }] };
    expect(firstSlots(schedule, '2025-06-01T00:00:00Z', 2))
      .toEqual(['2025-06-01T15:30:00.000Z', '2025-06-08T15:30:00.000Z']);
  });

  it('skips slots taken by posts (by the minute) and answers none when the schedule is empty', () => {
    const postingSlots = [{ weekday: 1, time: '09:00' }, { weekday: 1, time: '18:15' }];
    const schedule = { timeZone: 'Europe/Berlin', postingSlots };
    const taken = new Set([slotMinute(new Date('2025-03-31T07:00:20Z'))]);
    const free = nextFreeSlots(schedule, new Date('2025-03-29T00:00:00Z'), taken, 2).map((slot) => slot.toISOString());
    expect(free).toEqual(['2025-03-31T16:15:00.000Z', '2025-04-07T07:00:00.000Z']);
    expect(nextFreeSlots({ timeZone: 'UTC', postingSlots: [] }, new Date(), new Set(), 1)).toEqual([]);
  });

  it('looks 90 local days ahead and no further', () => {
    const schedule = { timeZone: 'Europe/Berlin', postingSlots: everyDay('10:00') };
    const all = [...slotInstants(schedule, new Date('2025-01-01T00:00:00Z'))];
    expect(all).toHaveLength(91);
    expect(all.at(-1)?.toISOString()).toBe('2025-04-01T08:00:00.000Z');
  });
});

describe('schedules as stored and as sent', () => {
  it('reads a channel saved before schedules as its UTC times every day of the week', () => {
    const schedule = scheduleOfChannel({ postingTimes: [1140, 560, 560, 2000] });
    expect(schedule.timeZone).toBe('UTC');
    expect(schedule.postingSlots).toHaveLength(14);
    expect(schedule.postingSlots.slice(0, 2)).toEqual([{ weekday: 1, time: '09:20' }, { weekday: 1, time: '19:00' }]);
    const set = scheduleOfChannel({ timeZone: 'Europe/Berlin', postingSlots: [], postingTimes: [600] });
    expect(set).toEqual({ timeZone: 'Europe/Berlin', postingSlots: [] });
  });

  it('canonicalizes a known zone and refuses an unknown one with its own code', () => {
    expect(checkedTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(checkedTimeZone('UTC')).toBe('UTC');
    expect(checkedTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    for (const zone of ['Mars/Olympus_Mons', '+02:00', 'CEST']) {
      let thrown: unknown;
      try {
        checkedTimeZone(zone);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(DomainError);
      expect((thrown as DomainError).code).toBe('unknown_time_zone');
    }
  });

  it('refuses malformed times, weekdays and repeated slots', () => {
    const parse = (postingSlots: unknown) => postingScheduleSchema.safeParse({ timeZone: 'UTC', postingSlots });
    expect(parse([{ weekday: 1, time: '09:00' }, { weekday: 7, time: '23:59' }]).success).toBe(true);
    for (const bad of [
      [{ weekday: 1, time: '24:00' }], [{ weekday: 1, time: '9:00' }], [{ weekday: 0, time: '09:00' }],
      [{ weekday: 8, time: '09:00' }], [{ weekday: 1, time: '09:00' }, { weekday: 1, time: '09:00' }],
    ]) {
      expect(parse(bad).success).toBe(false);
    }
  });
});
