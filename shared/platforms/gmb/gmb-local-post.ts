import { z } from 'zod';
import { markdownToPlainText } from '../kit/content-format.ts';
import type { PublishInput, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { textLength } from '../kit/text-length.ts';
import { gmb, gmbSettings } from './definition.ts';
import { provider } from './gmb-api.ts';

/**
 * The v4 `LocalPost` SPS sends for one post part (design-blogging-business.md, section 7.2):
 * the post's Markdown as the plain-text `summary`, the settings' topic type, call-to-action,
 * event and offer, and at most one photo, which Google fetches itself from its `sourceUrl`.
 */

export type GmbSettings = z.output<typeof gmbSettings>;

/** What SPS sends when the settings name no language. */
export const defaultLanguageCode = 'en-US';

function permanent(message: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message });
}

export function readGmbSettings(raw: Record<string, unknown>): GmbSettings {
  const parsed = gmbSettings.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw permanent(`the Google Business Profile settings are not valid: ${problems}`);
  }
  return parsed.data;
}

/** `2030-05-01` as Google's `Date`. */
function googleDate(day: string): { year: number; month: number; day: number } {
  const [year, month, date] = day.split('-').map(Number);
  return { year: year ?? 0, month: month ?? 0, day: date ?? 0 };
}

/** `18:30` as Google's `TimeOfDay`. */
function googleTime(time: string): { hours: number; minutes: number; seconds: number; nanos: number } {
  const [hours, minutes] = time.split(':').map(Number);
  return { hours: hours ?? 0, minutes: minutes ?? 0, seconds: 0, nanos: 0 };
}

function schedule(event: NonNullable<GmbSettings['event']>): Record<string, unknown> {
  return {
    startDate: googleDate(event.startDate),
    ...(event.startTime === undefined ? {} : { startTime: googleTime(event.startTime) }),
    endDate: googleDate(event.endDate),
    ...(event.endTime === undefined ? {} : { endTime: googleTime(event.endTime) }),
  };
}

/** The post's text as Google shows it: plain text, since a local post renders no Markdown. */
export function summaryOf(content: string): string {
  const summary = markdownToPlainText(content);
  // POST /posts counts the Markdown as written; what it renders to is counted again here.
  const length = textLength(summary, gmb.textCounting);
  if (length > gmb.textLimit) {
    throw permanent(`the post's text has ${String(length)} characters as plain text; a Google Business Profile `
      + `post takes ${String(gmb.textLimit)}`);
  }
  return summary;
}

/** The one photo of the part; a video, or more than one photo, is refused before anything is sent. */
export function photoOf(media: readonly PublishMedia[]): PublishMedia | null {
  if (media.some((item) => item.kind === 'video')) {
    throw permanent('Google Business Profile posts take no video');
  }
  if (media.length > 1) {
    throw permanent(`Google Business Profile posts take at most 1 photo, not ${String(media.length)}`);
  }
  return media[0] ?? null;
}

/** What SPS sends; `event.schedule` and the media as Google's create takes them. */
export interface LocalPostBody {
  languageCode: string;
  summary?: string;
  topicType: GmbSettings['topicType'];
  callToAction?: GmbSettings['callToAction'];
  event?: { title: string; schedule: Record<string, unknown> };
  offer?: GmbSettings['offer'];
  alertType?: GmbSettings['alertType'];
  media?: { mediaFormat: 'PHOTO'; sourceUrl: string }[];
}

export function localPostBody(input: PublishInput, settings: GmbSettings): LocalPostBody {
  const summary = summaryOf(input.content);
  const photo = photoOf(input.media);
  const { topicType, callToAction, event, offer, alertType } = settings;
  return {
    languageCode: settings.languageCode ?? defaultLanguageCode,
    ...(summary === '' ? {} : { summary }),
    topicType,
    ...(callToAction === undefined ? {} : { callToAction }),
    ...(event === undefined ? {} : { event: { title: event.title, schedule: schedule(event) } }),
    ...(offer === undefined ? {} : { offer }),
    ...(alertType === undefined ? {} : { alertType }),
    ...(photo === null ? {} : { media: [{ mediaFormat: 'PHOTO', sourceUrl: photo.url }] }),
  };
}

/** A `LocalPost` as Google answers it; `name` is `accounts/{a}/locations/{l}/localPosts/{id}`. */
export const localPost = z.object({
  name: z.string().regex(/^accounts\/[^/]+\/locations\/[^/]+\/localPosts\/[^/]+$/),
  summary: z.string().optional(),
  topicType: z.string(),
  event: z.object({ title: z.string().optional() }).loose().optional(),
  state: z.string().optional(),
  createTime: z.string().optional(),
  searchUrl: z.string().optional(),
});
export type LocalPost = z.infer<typeof localPost>;

/**
 * Where a post is seen: its `searchUrl` (the post in Google Search); without one (a post still
 * PROCESSING) the location's page on business.google.com, as postiz links it.
 */
export function localPostUrl(post: LocalPost): string {
  if (post.searchUrl !== undefined && post.searchUrl !== '') return post.searchUrl;
  const location = /\/locations\/([^/]+)\//.exec(post.name)?.[1] ?? '';
  return `https://business.google.com/locations/${encodeURIComponent(location)}`;
}

/** A policy rejection Google states on the post itself: a content error, never retried. */
export function refusedByPolicy(post: LocalPost): PlatformError | null {
  if (post.state !== 'REJECTED') return null;
  return permanent(`Google Business Profile rejected the post (state REJECTED, ${post.name}): it breaks Google's `
    + 'content policies; change it before posting again');
}
