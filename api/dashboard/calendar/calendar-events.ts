import { z } from 'zod';
import { listPosts, type ListedChannel, type StoredPost } from '../../../shared/domain/posts/post-queries.ts';
import type { Database } from '../../../shared/db/database.ts';
import type { MessageKey } from '../i18n/messages-en.ts';
import type { Translate } from '../i18n/translate.ts';

/** The states the calendar shows, in the words of its filter; drafts have no date to keep. */
export const calendarStates = { scheduled: 'QUEUE', published: 'PUBLISHED', failed: 'ERROR' } as const;
export type CalendarState = keyof typeof calendarStates;

/**
 * The filter of the page and of the events it asks for; empty fields mean "all". Made for the
 * reader's language, since a refusal names the problem in it.
 */
export function calendarFilterIn(t: Translate) {
  const objectIdText = z.string().regex(/^[0-9a-f]{24}$/i, t('calendar.notAnId'));
  return z.object({
    customer: z.union([z.literal(''), objectIdText]).optional(),
    channel: z.union([z.literal(''), objectIdText]).optional(),
    state: z.union([z.literal(''), z.enum(['scheduled', 'published', 'failed'])]).optional(),
  });
}
export type CalendarFilter = z.output<ReturnType<typeof calendarFilterIn>>;

/** What FullCalendar asks for: the visible range (bounded by listPosts to a year), and the filter. */
export function calendarEventsQueryIn(t: Translate) {
  const instant = z.string().refine((text) => !Number.isNaN(Date.parse(text)), t('calendar.notADate'))
    .transform((text) => new Date(text));
  return calendarFilterIn(t).extend({ start: instant, end: instant });
}

/** One post as FullCalendar reads an event; only a scheduled one can be dragged. */
export interface CalendarEvent {
  id: string;
  title: string;
  start: string;
  url: string;
  startEditable: boolean;
  classNames: string[];
  extendedProps: { state: CalendarState; channel: string; error: string | null };
}

const stateOf = (post: StoredPost): CalendarState | null => {
  const entry = Object.entries(calendarStates).find(([, stored]) => stored === post.state);
  return entry === undefined ? null : (entry[0] as CalendarState);
};

/** An event's title: the state (but for scheduled ones, the calendar's usual case), channel and text. */
const titles = {
  scheduled: 'calendar.eventScheduled',
  published: 'calendar.eventPublished',
  failed: 'calendar.eventFailed',
} as const satisfies Record<CalendarState, MessageKey>;

function calendarEvent(
  t: Translate, post: StoredPost, channel: ListedChannel | undefined, state: CalendarState,
): CalendarEvent {
  const name = channel?.name ?? t('calendar.removedChannel');
  const content = post.content.length > 60 ? `${post.content.slice(0, 59)}…` : post.content;
  return {
    id: post._id.toString(),
    title: t(titles[state], { channel: name, content }),
    start: post.publishDate.toISOString(),
    url: `/posts/${post._id.toString()}`,
    startEditable: state === 'scheduled',
    classNames: [`post-${state}`],
    extendedProps: { state, channel: name, error: post.error ?? null },
  };
}

/** The organization's posts in the range as events, through listPosts as GET /posts reads them. */
export async function calendarEvents(
  db: Database,
  t: Translate,
  organizationId: string,
  range: { start: Date; end: Date },
  filter: CalendarFilter,
): Promise<CalendarEvent[]> {
  const customer = filter.customer === '' ? undefined : filter.customer;
  const request = { startDate: range.start, endDate: range.end, customer };
  const { posts, channels } = await listPosts(db, organizationId, request);
  return posts.flatMap((post) => {
    const state = stateOf(post);
    if (state === null) return [];
    if (filter.state !== undefined && filter.state !== '' && filter.state !== state) return [];
    const channel = filter.channel ?? '';
    if (channel !== '' && post.channelId.toString() !== channel) return [];
    return [calendarEvent(t, post, channels.get(post.channelId.toString()), state)];
  });
}
