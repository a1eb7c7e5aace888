import { IANAZone } from 'luxon';

/** A local date and time of day, as a clock on the wall in some zone shows it. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const minuteMs = 60_000;
/** Far enough either side of a wall time to read the offsets before and after any change near it. */
const aroundMs = 36 * 3_600_000;

/**
 * The instant a zone's clocks show `wall`, with SPS's rule for the two hours a daylight-saving
 * change makes odd (README, "Posting schedules"):
 * - a wall time the clocks skip (02:30 on Europe/Berlin's spring-forward day) is the first instant
 *   after the gap, the moment of the change (03:00 local);
 * - a wall time the clocks show twice (02:30 on the fall-back day) is the first of the two.
 *
 * luxon's own `DateTime.fromObject` shifts a skipped time forward by the gap's length (02:30 would
 * become 03:30) and picks either occurrence of a repeated one depending on its first guess, so the
 * rule is applied here, from the zone's offsets as luxon reads them from the IANA database.
 */
export function wallClockInstant(zone: IANAZone, wall: WallClock): Date {
  // The wall time read as if it were UTC; the real instant is this minus the zone's offset then.
  const naive = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  const offsets = new Set([zone.offset(naive - aroundMs), zone.offset(naive), zone.offset(naive + aroundMs)]);
  // An offset fits when the zone really has that offset at the instant it gives.
  const fitting = [...offsets]
    .map((offset) => naive - offset * minuteMs)
    .filter((instant) => zone.offset(instant) * minuteMs === naive - instant)
    .sort((a, b) => a - b);
  const first = fitting[0];
  if (first !== undefined) return new Date(first);
  return new Date(gapEnd(zone, naive, [...offsets]));
}

/**
 * The instant a gap ends, for a wall time inside it. Read with the smallest offset, the wall time
 * falls after the change; with the largest, before it. The change itself lies between, on a
 * whole minute (every change in the IANA database does), found by halving in under 12 steps.
 */
function gapEnd(zone: IANAZone, naive: number, offsets: number[]): number {
  let before = naive - Math.max(...offsets) * minuteMs;
  let after = naive - Math.min(...offsets) * minuteMs;
  const offsetBefore = zone.offset(before);
  while (after - before > minuteMs) {
    const middle = before + Math.floor((after - before) / 2 / minuteMs) * minuteMs;
    if (zone.offset(middle) === offsetBefore) before = middle;
    else after = middle;
  }
  return after;
}
