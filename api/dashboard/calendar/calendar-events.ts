import { z } from 'zod';
import { listPosts, type ListedChannel, type StoredPost } from '../../../shared/domain/posts/post-queries.ts';
import type { Database } from '../../../shared/db/database.ts';

/** The states the calendar shows, in the words of its filter; drafts have no date to keep. */
export const calendarStates = { scheduled: 'QUEUE', published: 'PUBLISHED', failed: 'ERROR' } as const;
export type CalendarState = keyof typeof calendarStates;

const objectIdText = z.string().regex(/^[0-9a-f]{24}$/i, 'is not an id of this site');
const instant = z.string().refine((text) => !Number.isNaN(Date.parse(text)), 'is not a date and time')
  .transform((text) => new Date(text));

/** The filter of the page and of the events it asks for; empty fields mean "all". */
export const calendarFilter = z.object({
  customer: z.union([z.literal(''), objectIdText]).optional(),
  channel: z.union([z.literal(''), objectIdText]).optional(),
  state: z.union([z.literal(''), z.enum(['scheduled', 'published', 'failed'])]).optional(),
});
export type CalendarFilter = z.output<typeof calendarFilter>;

/** What FullCalendar asks for: the visible range (bounded by listPosts to a year), and the filter. */
export const calendarEventsQuery = calendarFilter.extend({ start: instant, end: instant });

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

function calendarEvent(post: StoredPost, channel: ListedChannel | undefined, state: CalendarState): CalendarEvent {
  const name = channel?.name ?? '(removed channel)';
  const content = post.content.length > 60 ? `${post.content.slice(0, 59)}…` : post.content;
  const prefix = state === 'failed' ? 'Failed: ' : state === 'published' ? 'Published: ' : '';
  return {
    id: post._id.toString(),
    title: `${prefix}${name}: ${content}`,
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
    return [calendarEvent(post, channels.get(post.channelId.toString()), state)];
  });
}
