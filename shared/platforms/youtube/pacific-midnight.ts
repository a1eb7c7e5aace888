/**
 * YouTube's daily quota turns over at midnight Pacific time (America/Los_Angeles), a zone with
 * daylight saving: a day there lasts 23, 24 or 25 hours, so the wait is worked out from the zone's
 * own offsets rather than a fixed -8 hours.
 */
const pacific = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Los_Angeles',
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClock(at: number): WallClock {
  const parts = Object.fromEntries(pacific.formatToParts(new Date(at)).map((part) => [part.type, part.value]));
  const read = (type: keyof WallClock): number => Number(parts[type]);
  return {
    year: read('year'), month: read('month'), day: read('day'),
    hour: read('hour'), minute: read('minute'), second: read('second'),
  };
}

/** How far Pacific wall time is ahead of UTC at `at` (negative: -7 or -8 hours). */
function offsetMs(at: number): number {
  const wall = wallClock(at);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - (at - (((at % 1000) + 1000) % 1000));
}

/** Milliseconds from `now` to the next midnight in Pacific time. */
export function msUntilPacificMidnight(now: number): number {
  const today = wallClock(now);
  const nextMidnightWall = Date.UTC(today.year, today.month - 1, today.day + 1);
  // The offset at midnight may differ from now's (a DST change in between): settle it at the guess.
  const guess = nextMidnightWall - offsetMs(now);
  return nextMidnightWall - offsetMs(guess) - now;
}
