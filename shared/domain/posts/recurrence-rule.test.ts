import { describe, expect, it } from 'vitest';
import { maxRepeatCount, nextOccurrence, ruleProblem, type Recurrence } from './recurrence-rule.ts';

const weekly = (startAt: string, extra: Partial<Recurrence> = {}): Recurrence => ({
  intervalInDays: null, rule: 'FREQ=WEEKLY;BYDAY=MO,TH', until: null, count: null, startAt: new Date(startAt), ...extra,
});

/** The series' occurrences from its first, each computed from the one before, as the workers make them. */
function series(recurrence: Recurrence, zone: string, limit: number, settledAt?: (at: Date) => Date): string[] {
  const found: string[] = [];
  let current: { at: Date; index: number } | null = { at: recurrence.startAt, index: 1 };
  while (current !== null && found.length < limit) {
    found.push(current.at.toISOString());
    current = nextOccurrence(recurrence, zone, current, settledAt?.(current.at) ?? current.at);
  }
  return found;
}

describe('the next occurrence of a recurring post', () => {
  it('keeps a weekly MO,TH rule at 09:00 Europe/Berlin across the October change', () => {
    // Monday 20 October 2025, 09:00 CEST (07:00 UTC); clocks go back on Sunday the 26th.
    expect(series(weekly('2025-10-20T07:00:00Z'), 'Europe/Berlin', 5)).toEqual([
      '2025-10-20T07:00:00.000Z', '2025-10-23T07:00:00.000Z',
      '2025-10-27T08:00:00.000Z', '2025-10-30T08:00:00.000Z', '2025-11-03T08:00:00.000Z',
    ]);
  });

  it('keeps every-N-days at the same local time across the March change in New York', () => {
    const recurrence: Recurrence = { ...weekly('2025-03-07T14:00:00Z'), rule: null, intervalInDays: 2 };
    expect(series(recurrence, 'America/New_York', 3))
      .toEqual(['2025-03-07T14:00:00.000Z', '2025-03-09T13:00:00.000Z', '2025-03-11T13:00:00.000Z']);
  });

  it('stops after count occurrences, the first included, and at until', () => {
    expect(series(weekly('2025-10-20T07:00:00Z', { count: 3 }), 'Europe/Berlin', 10)).toHaveLength(3);
    const until = new Date('2025-10-27T08:00:00Z');
    expect(series(weekly('2025-10-20T07:00:00Z', { until }), 'Europe/Berlin', 10)).toHaveLength(3);
  });

  it('passes over occurrences due before the previous one settled, counting them', () => {
    const recurrence = { ...weekly('2025-01-01T09:00:00Z'), rule: null, intervalInDays: 1, count: 5 };
    // The first settles two and a half days late: the 2nd and 3rd are skipped, the 4th comes next.
    const next = nextOccurrence(recurrence, 'UTC', { at: recurrence.startAt, index: 1 }, new Date('2025-01-03T21:00Z'));
    expect(next).toEqual({ at: new Date('2025-01-04T09:00:00Z'), index: 4 });
    expect(nextOccurrence(recurrence, 'UTC', { at: recurrence.startAt, index: 1 }, new Date('2025-01-06T00:00Z')))
      .toBeNull();
  });

  it('makes one occurrence of two wall times the spring gap puts on one instant', () => {
    const recurrence = { ...weekly('2025-03-29T01:30:00Z'), rule: 'FREQ=DAILY;BYHOUR=2,3;BYMINUTE=30' };
    expect(series(recurrence, 'Europe/Berlin', 4)).toEqual([
      '2025-03-29T01:30:00.000Z', '2025-03-29T02:30:00.000Z', '2025-03-30T01:00:00.000Z', '2025-03-30T01:30:00.000Z',
    ]);
  });
});

describe('rules a post may repeat on', () => {
  it('accepts rrule\'s rules, with or without the RRULE: prefix', () => {
    expect(ruleProblem('FREQ=WEEKLY;BYDAY=MO,TH')).toBeNull();
    expect(ruleProblem('RRULE:FREQ=MONTHLY;BYMONTHDAY=1')).toBeNull();
  });

  it.each([
    ['garbage', /unknown part/],
    ['FREQ=SOMETIMES', /FREQ has a value/],
    ['BYDAY=MO', /FREQ is missing/],
    ['FREQ=WEEKLY;BYDAY=XX', /BYDAY has a value/],
    ['FREQ=DAILY;INTERVAL=often', /INTERVAL has a value/],
    ['FREQ=DAILY;INTERVAL=0', /INTERVAL has a value/],
    ['FREQ=DAILY;BYHOUR=25', /BYHOUR has a value/],
    ['FREQ=MINUTELY', /FREQ must be/],
    ['FREQ=DAILY;COUNT=3', /repeat.count/],
    ['DTSTART:20250101T000000Z\nRRULE:FREQ=DAILY', /one RRULE line/],
    ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', /no occurrence within 5 years/],
  ])('refuses %j with a readable reason', (rule, reason) => {
    expect(ruleProblem(rule)).toMatch(reason);
  });

  it('documents its cap on count', () => {
    expect(maxRepeatCount).toBe(366);
  });
});
