import { describe, expect, it } from 'vitest';
import { dueHourOf, hourOf, hoursFrom } from './due-bucket.ts';

describe('due buckets', () => {
  it('counts whole hours since the epoch, the last millisecond of an hour still in it', () => {
    expect(hourOf(new Date('1970-01-01T00:59:59.999Z'))).toBe(0);
    expect(hourOf(new Date('1970-01-01T01:00:00.000Z'))).toBe(1);
    expect(hourOf(new Date('2030-06-01T10:30:00Z'))).toBe(Date.UTC(2030, 5, 1, 10) / 3_600_000);
  });

  it('puts a post in its date\'s hour, or in the current hour once the date has passed', () => {
    const now = new Date('2030-06-01T10:30:00Z');
    expect(dueHourOf(new Date('2030-06-02T08:15:00Z'), now)).toBe(hourOf(new Date('2030-06-02T08:00:00Z')));
    expect(dueHourOf(new Date('2030-05-28T08:15:00Z'), now)).toBe(hourOf(now));
    expect(dueHourOf(now, now)).toBe(hourOf(now));
  });

  it('lists the hours between two buckets, both included, and none when the first is later', () => {
    expect(hoursFrom(10, 13)).toEqual([10, 11, 12, 13]);
    expect(hoursFrom(7, 7)).toEqual([7]);
    expect(hoursFrom(8, 7)).toEqual([]);
  });
});
