import { IANAZone } from 'luxon';
import { z } from 'zod';
import { DomainError } from '../../errors.ts';

/**
 * A channel's posting schedule: weekly slots read as wall-clock times in the channel's IANA time
 * zone, so a 09:00 slot stays 09:00 local across daylight-saving changes (next-free-slot.ts).
 */
export interface PostingSlot {
  /** ISO weekday, as luxon numbers it: 1 = Monday ... 7 = Sunday. */
  weekday: number;
  /** Local time of day, `HH:MM` (24-hour clock). */
  time: string;
}

export interface PostingSchedule {
  timeZone: string;
  postingSlots: PostingSlot[];
}

export const defaultTimeZone = 'UTC';

/** A week of slots every 10 minutes is 1,008; more than this is a mistake, not a schedule. */
export const maxPostingSlots = 200;

export const postingSlotSchema = z.object({
  weekday: z.number().int().min(1).max(7).describe('ISO weekday: 1 = Monday ... 7 = Sunday'),
  time: z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'a local time of day as HH:MM, from 00:00 to 23:59')
    .describe('Local time of day in the channel\'s time zone, HH:MM (24-hour clock)'),
});

/**
 * The shape of a schedule as clients send it. The zone is only checked for its shape here: a
 * well-formed name the time-zone database does not know is 422 `unknown_time_zone`
 * (checkedTimeZone), a code of its own so a client can tell it from a malformed body.
 */
export const postingScheduleSchema = z.object({
  timeZone: z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_+\-/]+$/, 'an IANA time zone name, e.g. Europe/Berlin')
    .describe('IANA time zone name, e.g. Europe/Berlin or America/New_York; UTC for none'),
  postingSlots: z.array(postingSlotSchema).max(maxPostingSlots).superRefine((slots, check) => {
    const seen = new Set<string>();
    slots.forEach((slot, index) => {
      const key = `${slot.weekday} ${slot.time}`;
      if (seen.has(key)) {
        check.addIssue({ code: 'custom', path: [index], message: 'this weekday and time is listed twice' });
      }
      seen.add(key);
    });
  }).describe(`Weekly posting slots, at most ${maxPostingSlots}; an empty list leaves the queue without slots`),
});

/**
 * The zone's usual spelling (`europe/berlin` is stored as `Europe/Berlin`), or 422 when the
 * time-zone database does not know it. Fixed offsets such as `+02:00` are refused: they have no
 * daylight-saving rules, and a place's rules are what keep its slots at the same local time.
 */
export function checkedTimeZone(name: string): string {
  // Node 24's Intl (and so luxon) accepts offsets such as `+02:00` as zones; they are not IANA names.
  if (/^[+-]/.test(name) || !IANAZone.isValidZone(name)) {
    throw new DomainError('unknown_time_zone', `${JSON.stringify(name)} is not a time zone of the IANA database`, [
      { path: 'timeZone', message: 'not an IANA time zone name, e.g. Europe/Berlin or America/New_York' },
    ]);
  }
  // ICU resolves some names to older aliases (Asia/Kolkata to Asia/Calcutta): its spelling is
  // taken only to fix the case of the very name given, never to swap one name for another.
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

/** Weekdays first, then times: the order pages and answers list slots in. */
export function sortedSlots(slots: readonly PostingSlot[]): PostingSlot[] {
  return [...slots].sort((a, b) => a.weekday - b.weekday || a.time.localeCompare(b.time));
}

/** What a channel document holds that bears on its schedule, old documents included. */
export interface StoredSchedule {
  timeZone?: string | null | undefined;
  postingSlots?: readonly PostingSlot[] | null | undefined;
  /** Before schedules: minutes after midnight UTC, every day. Read while `postingSlots` is unset. */
  postingTimes?: readonly number[] | null | undefined;
}

function legacyTime(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  return `${String(hours).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * The schedule a channel document stands for. Channels saved before schedules existed (and new
 * ones until a schedule is set) carry only `postingTimes`: those become the same times every day
 * of the week in UTC, which is what find-slot always answered for them, so nothing moves until
 * the user sets a schedule (that write replaces `postingTimes`). Stored values are read through
 * the same checks as input, so a document edited by hand cannot make find-slot fail.
 */
export function scheduleOfChannel(stored: StoredSchedule): PostingSchedule {
  const zone = stored.timeZone ?? defaultTimeZone;
  const timeZone = IANAZone.isValidZone(zone) ? zone : defaultTimeZone;
  if (stored.postingSlots !== undefined && stored.postingSlots !== null) {
    const slots = stored.postingSlots.filter((slot) => postingSlotSchema.safeParse(slot).success)
      .map((slot) => ({ weekday: slot.weekday, time: slot.time }));
    return { timeZone, postingSlots: sortedSlots(slots) };
  }
  const minutes = [...new Set(stored.postingTimes ?? [])]
    .filter((value) => Number.isInteger(value) && value >= 0 && value < 1440);
  const postingSlots = [1, 2, 3, 4, 5, 6, 7]
    .flatMap((weekday) => minutes.map((value) => ({ weekday, time: legacyTime(value) })));
  return { timeZone, postingSlots: sortedSlots(postingSlots) };
}
