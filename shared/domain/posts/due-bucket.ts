/**
 * A queued post's due bucket (`dueHour`): the whole hours since the epoch of the moment its
 * publish job falls due. The recovery sweep asks for one bucket at a time with an equality
 * (`{state: 'QUEUE', dueHour}`), the only kind of filter FerretDB hands PostgreSQL, so what it
 * reads is the posts due in the hours it looks at rather than the whole future schedule
 * (docs/queries.md).
 */

const hourMs = 3_600_000;

/** The bucket of a moment: whole hours since the epoch. */
export function hourOf(moment: Date): number {
  return Math.floor(moment.getTime() / hourMs);
}

/**
 * The bucket of a post queued at `now` to publish at `publishDate`: that date's hour, or the
 * current one when the date has passed, since its job then runs now. Written with the date on
 * every write that queues a post or moves it, so a post queued again long after its date is
 * still in a bucket the sweep reads.
 */
export function dueHourOf(publishDate: Date, now: Date): number {
  return hourOf(publishDate > now ? publishDate : now);
}

/** The buckets from `first` to `last`, both included, oldest first; none when `first` is after `last`. */
export function hoursFrom(first: number, last: number): number[] {
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, index) => first + index);
}
