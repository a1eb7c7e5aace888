import { DateTime, IANAZone } from 'luxon';
import rrule from 'rrule';
import type { Options as RuleOptions } from 'rrule';
import { wallClockInstant } from '../channels/wall-clock-instant.ts';

// rrule ships CommonJS without named ESM exports under Node: its classes come off the default export.
const { RRule } = rrule;

/** At most this many occurrences in one series (repeat.count): a year of daily posts. */
export const maxRepeatCount = 366;
/** An RFC 5545 rule, as text, is at most this long. */
export const maxRuleLength = 500;
/** intervalInDays, the contract's shorthand: from every day to once a year. */
export const maxIntervalInDays = 365;
/**
 * How far ahead the next occurrence is looked for. rrule walks every candidate date from the
 * series' start, so a rule that never matches (30 February) would otherwise walk to the year
 * 9999; a rule with no occurrence in this window is refused when given and ends its series.
 */
const searchYears = 5;

/** How a series repeats, as stored on each of its occurrences (post.ts `repeat`). */
export interface Recurrence {
  /** Every N days at the first occurrence's local time; null for a rule. */
  intervalInDays: number | null;
  /** An RFC 5545 RRULE (without COUNT, UNTIL, DTSTART), read in the channel's time zone; null for an interval. */
  rule: string | null;
  /** No occurrence after this instant. */
  until: Date | null;
  /** At most this many occurrences, the first included. */
  count: number | null;
  /** The rule's start (its DTSTART, which gives the local time of day): the first occurrence, or one an edit moved. */
  startAt: Date;
}

/** The rule text without an optional `RRULE:` prefix. */
const ruleBody = (rule: string): string => rule.trim().replace(/^RRULE:/i, '').replace(/;$/, '');

const list = (item: string): RegExp => new RegExp(`^${item}(?:,${item})*$`);
const signed = (max: string): string => `[+-]?(?:${max})`;

/**
 * The rule parts SPS takes and the values each may have (RFC 5545, 3.3.10). rrule's own parser
 * takes `INTERVAL=often` or `BYDAY=XX` without a word and then loops or throws later, so the text
 * is checked here first.
 */
const ruleParts = new Map<string, RegExp>([
  ['FREQ', /^(?:YEARLY|MONTHLY|WEEKLY|DAILY|HOURLY)$/],
  ['INTERVAL', /^[1-9]\d{0,3}$/],
  ['BYMINUTE', list('(?:[0-5]?\\d)')],
  ['BYHOUR', list('(?:[01]?\\d|2[0-3])')],
  ['BYDAY', list('(?:[+-]?(?:[1-9]|[1-4]\\d|5[0-3])?(?:MO|TU|WE|TH|FR|SA|SU))')],
  ['BYMONTHDAY', list(signed('[1-9]|[12]\\d|3[01]'))],
  ['BYYEARDAY', list(signed('[1-9]\\d?|[12]\\d\\d|3[0-5]\\d|36[0-6]'))],
  ['BYWEEKNO', list(signed('[1-9]|[1-4]\\d|5[0-3]'))],
  ['BYMONTH', list('(?:[1-9]|1[0-2])')],
  ['BYSETPOS', list(signed('[1-9]\\d?|[12]\\d\\d|3[0-5]\\d|36[0-6]'))],
  ['WKST', /^(?:MO|TU|WE|TH|FR|SA|SU)$/],
]);

/** Why the rule's text is not one SPS takes, or null. */
function ruleTextProblem(body: string): string | null {
  if (/[\r\n]/.test(body)) return 'give one RRULE line, e.g. FREQ=WEEKLY;BYDAY=MO,TH';
  const seen = new Set<string>();
  for (const part of body.split(';')) {
    const [name = '', value, ...rest] = part.split('=');
    const key = name.trim().toUpperCase();
    if (key === 'DTSTART' || key === 'TZID') {
      return 'the rule starts at the post\'s date in the channel\'s time zone: leave DTSTART and TZID out';
    }
    if (key === 'COUNT' || key === 'UNTIL') return 'give COUNT and UNTIL as repeat.count and repeat.until';
    if (key === 'FREQ' && /^(?:MINUTELY|SECONDLY)$/i.test(value ?? '')) {
      return 'FREQ must be YEARLY, MONTHLY, WEEKLY, DAILY or HOURLY: a post cannot repeat every minute';
    }
    const allowed = ruleParts.get(key);
    if (allowed === undefined) return `not an RFC 5545 rule SPS takes: unknown part ${JSON.stringify(name)}`;
    if (value === undefined || rest.length > 0 || !allowed.test(value.trim().toUpperCase())) {
      return `the rule part ${key} has a value that is not valid: ${JSON.stringify(value ?? '')}`;
    }
    if (seen.has(key)) return `the rule part ${key} is given twice`;
    seen.add(key);
  }
  if (!seen.has('FREQ')) return 'FREQ is missing: one of YEARLY, MONTHLY, WEEKLY, DAILY, HOURLY';
  return null;
}

/** The rule's options, or why it cannot be used, in words a client can act on. */
function parsedRule(rule: string): Partial<RuleOptions> | string {
  const body = ruleBody(rule);
  const problem = ruleTextProblem(body);
  if (problem !== null) return problem;
  try {
    return RRule.parseString(body.toUpperCase());
  } catch (error) {
    return `not an RFC 5545 rule: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Local wall time of `instant` in `zone`, as a UTC date: how rrule is given times to read in a zone. */
function floating(instant: Date, zone: IANAZone): Date {
  const local = DateTime.fromJSDate(instant, { zone });
  return new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute));
}

/** The instant the zone's clocks show a floating time, skipped and repeated hours as for posting slots. */
function fromFloating(wall: Date, zone: IANAZone): Date {
  return wallClockInstant(zone, {
    year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate(),
    hour: wall.getUTCHours(), minute: wall.getUTCMinutes(),
  });
}

const yearsAfter = (date: Date, years: number): Date =>
  new Date(Date.UTC(date.getUTCFullYear() + years, date.getUTCMonth(), date.getUTCDate(), date.getUTCHours()));

/** The first floating occurrence strictly after `after`, within the search window; null if none. */
function firstAfter(rule: InstanceType<typeof RRule>, after: Date): Date | null {
  return rule.between(after, yearsAfter(after, searchYears), false, (_date, index) => index < 1)[0] ?? null;
}

function ruleOf(recurrence: Pick<Recurrence, 'intervalInDays' | 'rule'>, start: Date): InstanceType<typeof RRule> {
  if (recurrence.rule === null) {
    return new RRule({ freq: RRule.DAILY, interval: recurrence.intervalInDays ?? 1, dtstart: start });
  }
  const options = parsedRule(recurrence.rule);
  if (typeof options === 'string') throw new Error(`stored repeat rule is unusable: ${options}`);
  return new RRule({ ...options, dtstart: start });
}

/**
 * Why `rule` cannot repeat a post, or null when it can: rrule's parser, the fields SPS sets
 * itself, and at least one occurrence within five years of `start` (a rule such as 30 February
 * never occurs).
 */
export function ruleProblem(rule: string, start: Date = new Date()): string | null {
  const options = parsedRule(rule);
  if (typeof options === 'string') return options;
  const wall = floating(start, IANAZone.create('UTC'));
  try {
    if (firstAfter(new RRule({ ...options, dtstart: wall }), wall) === null) {
      return `the rule has no occurrence within ${searchYears} years`;
    }
  } catch (error) {
    return `not an RFC 5545 rule: ${error instanceof Error ? error.message : String(error)}`;
  }
  return null;
}

/** One occurrence of a series: when it is due, and its number (1 for the first). */
export interface Occurrence {
  at: Date;
  index: number;
}

/**
 * The occurrence after the one numbered `previous.index`, due at `previous.at` (its post's
 * date), read in `timeZone`: local wall times, so 09:00 stays 09:00 across daylight-saving
 * changes. Occurrences due before `notBefore` are passed over but counted, so a series that
 * settled late does not publish its backlog at once and `count` still bounds it. Null when the
 * series has ended (count, until, or no further occurrence).
 */
export function nextOccurrence(
  recurrence: Recurrence,
  timeZone: string,
  previous: Occurrence,
  notBefore: Date,
): Occurrence | null {
  const zone = IANAZone.create(timeZone);
  const rule = ruleOf(recurrence, floating(recurrence.startAt, zone));
  // Wall times are read to the minute; the start's seconds carry on to every occurrence.
  const seconds = recurrence.startAt.getTime() % 60_000;
  const instantOf = (wall: Date): Date => new Date(fromFloating(wall, zone).getTime() + seconds);
  const from = floating(previous.at, zone);
  let next = firstAfter(rule, notBefore > previous.at ? floating(notBefore, zone) : from);
  // Two wall times in a skipped hour fall on one instant: the later is the same post, passed over.
  while (next !== null && instantOf(next) <= previous.at) next = firstAfter(rule, next);
  if (next === null) return null;
  const index = previous.index + 1 + rule.between(from, next, false).length;
  const at = instantOf(next);
  if (recurrence.count !== null && index > recurrence.count) return null;
  if (recurrence.until !== null && at > recurrence.until) return null;
  return { at, index };
}
