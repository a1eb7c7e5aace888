import { z } from 'zod';
import { postStates } from '../../../shared/db/models/post.ts';
import { failureCategories } from '../../../shared/domain/publishing/failure-category.ts';
import { isoDate } from '../../../shared/validation/iso-date.ts';
import { postPageLimits } from '../../../shared/domain/posts/post-list-cursor.ts';
import {
  maxIntervalInDays, maxRepeatCount, maxRuleLength, ruleProblem,
} from '../../../shared/domain/posts/recurrence-rule.ts';
import { boundedJsonObject, errorCodeSchema, integrationRefSchema } from '../common-schemas.ts';
import { postRemovalSchema } from './removal-schema.ts';

/** Bounds that keep one request from asking for unbounded work (ARCHITECTURE rule 6). */
export const postLimits = {
  channelsPerRequest: 50,
  partsPerPost: 100,
  mediaPerPart: 20,
  /** Listmonk newsletters allow 100 million characters; per-platform limits apply on top. */
  contentCharacters: 100_000_000,
  delayMinutes: 7 * 24 * 60,
  /** Every part document carries the settings: deep enough for any platform's schema, small enough to copy. */
  settings: { maxDepth: 16, maxBytes: 256 * 1024 },
} as const;

const mediaReference = z.object({
  id: z.string().min(1).max(100),
  path: z.string().min(1).max(2048),
  alt: z.string().max(1500).optional(),
  thumbnail: z.string().max(2048).optional()
    .describe('On a video: its poster, the path or id of a JPEG or PNG image of at most 2 MB of your media '
      + 'library (stored as its path); YouTube sets it as the custom thumbnail, Reddit as the video poster. '
      + 'The video\'s own poster frame, or an empty string, keeps the frame'),
});

const postPart = z.object({
  content: z.string().max(postLimits.contentCharacters).default(''),
  id: z.string().min(1).max(100).optional().describe('On the first part: id of an existing post to edit'),
  delay: z.number().int().min(0).max(postLimits.delayMinutes).optional().describe('Minutes after the previous part'),
  image: z.array(mediaReference).max(postLimits.mediaPerPart).default([]),
});

const channelPost = z.object({
  integration: z.object({ id: z.string().min(1).max(100) }),
  group: z.string().min(1).max(100).optional(),
  settings: boundedJsonObject(postLimits.settings).optional()
    .describe('The platform\'s post settings (see GET /integration-settings/:id); at most 16 levels deep and 256 KB'),
  value: z.array(postPart).min(1, 'a post needs at least one part').max(postLimits.partsPerPost),
});

/** An RFC 5545 rule a post repeats on (shared/domain/posts/recurrence-rule.ts). */
const repeatBody = z.object({
  rule: z.string().trim().min(1).max(maxRuleLength).superRefine((rule, check) => {
    const problem = ruleProblem(rule);
    if (problem !== null) check.addIssue({ code: 'custom', message: problem });
  }).describe('An RFC 5545 RRULE such as FREQ=WEEKLY;BYDAY=MO,TH (FREQ YEARLY to HOURLY), read in the channel\'s '
    + 'time zone from the first occurrence (date), which gives the local time of day; COUNT and UNTIL go below'),
  until: isoDate.optional().describe('No occurrence after this instant'),
  count: z.number().int().min(1).max(maxRepeatCount).optional()
    .describe(`At most this many occurrences, the first included (at most ${maxRepeatCount})`),
}).refine((repeat) => repeat.until !== undefined || repeat.count !== undefined, {
  message: `give until or count (at most ${maxRepeatCount}), so the series ends`,
});

export const createPostsBody = z.object({
  type: z.enum(['draft', 'schedule', 'now', 'update', 'queue']).describe('update edits posts named by value[0].id '
    + 'without rescheduling them; queue gives each post its channel\'s next free posting slot (see '
    + 'GET /integrations/:id/schedule), consecutive slots for posts on one channel'),
  date: isoDate.optional().describe('When to publish (schedule); with queue, the earliest slot to take'),
  shortLink: z.boolean().optional().describe('true: each http(s) link in the content becomes SPS\'s own short link '
    + '(<host>/l/<code>, a 302 that counts clicks, shown in GET /posts/:id shortLinks); text limits count it'),
  tags: z.array(z.object({ value: z.string().min(1).max(100), label: z.string().min(1).max(100) })).max(50).default([]),
  posts: z.array(channelPost).min(1, 'name at least one channel in posts').max(postLimits.channelsPerRequest),
  intervalInDays: z.number().int().min(1).max(maxIntervalInDays).optional()
    .describe('With schedule: repeat the post every N days at the same local time in the channel\'s time zone, '
      + 'until the series is deleted; each occurrence is a post of its own'),
  repeat: repeatBody.optional().describe('With schedule: repeat the post on an RFC 5545 rule until a date or a count'),
}).superRefine((body, check) => {
  const repeats = body.intervalInDays !== undefined || body.repeat !== undefined;
  if (body.intervalInDays !== undefined && body.repeat !== undefined) {
    check.addIssue({ code: 'custom', path: ['repeat'], message: 'give intervalInDays or repeat, not both' });
  }
  if (repeats && body.type !== 'schedule') {
    check.addIssue({ code: 'custom', path: ['type'], message: 'a recurring post needs type "schedule" and a date' });
  }
  const until = body.repeat?.until;
  if (until !== undefined && body.date !== undefined && until < body.date) {
    check.addIssue({ code: 'custom', path: ['repeat', 'until'], message: 'is before the first occurrence (date)' });
  }
});
export type CreatePostsBody = z.infer<typeof createPostsBody>;

export const createPostsResponse = z.array(z.object({ postId: z.string(), integration: z.string() }));

/** One refusal of POST /posts, as a dry run reports it (shared/domain/posts/validate-posts.ts). */
const postProblemSchema = z.object({
  channel: z.string().nullable()
    .describe('posts[].integration.id as given; null for a problem of the request as a whole'),
  post: z.number().int().nullable().describe('Index of the channel post in posts[]; null with channel'),
  part: z.number().int().nullable().describe('Index of the part in value[]; null for the channel post as a whole'),
  path: z.string().describe('Where in the body, as in the details of POST /posts errors'),
  code: errorCodeSchema.describe('The error code POST /posts would answer with'),
  message: z.string().describe('The message of that detail in the POST /posts error'),
});

export const validatePostsResponse = z.object({
  valid: z.boolean().describe('True when POST /posts would accept the same body'),
  problems: z.array(postProblemSchema),
});

export const listPostsQuery = z.object({
  startDate: isoDate.describe('Start of the range (ISO 8601)'),
  endDate: isoDate.describe('End of the range (ISO 8601); at most 366 days after startDate'),
  customer: z.string().min(1).max(100).optional().describe('Only posts on channels of this customer'),
  limit: z.coerce.number().int().min(1).max(postPageLimits.max).optional()
    .describe(`Page size (1-${String(postPageLimits.max)}): answers one page and a \`cursor\`; `
      + 'without it, the whole range'),
  cursor: z.string().min(1).max(200).optional()
    .describe('The `cursor` of the previous page, to read the next one (with the same range and customer)'),
});

const mediaView = z.object({ id: z.string(), path: z.string(), alt: z.string().nullable(), thumbnail: z.string().nullable() });

export const listedPostSchema = z.object({
  id: z.string(),
  content: z.string(),
  publishDate: z.iso.datetime(),
  state: z.enum(postStates),
  releaseId: z.string().nullable(),
  releaseURL: z.string().nullable(),
  group: z.string(),
  intervalInDays: z.number().int().nullable()
    .describe('Every how many days the post\'s series repeats; null otherwise'),
  repeat: z.object({
    rule: z.string(), until: z.iso.datetime().nullable(), count: z.number().int().nullable(),
  }).nullable().describe('The RFC 5545 rule the post\'s series repeats on; null otherwise'),
  seriesId: z.string().nullable().describe('The series a recurring post\'s occurrences share (its first one\'s id)'),
  occurrence: z.number().int().nullable().describe('The occurrence\'s number in its series, 1 for the first'),
  settings: z.record(z.string(), z.unknown()),
  tags: z.array(z.object({ value: z.string(), label: z.string() })),
  error: z.string().nullable(),
  errorCategory: z.enum(failureCategories).nullable()
    .describe('Why the post failed (see "Failure categories" in docs/api.md); null unless it failed'),
  integration: integrationRefSchema,
});

export const listPostsResponse = z.object({
  posts: z.array(listedPostSchema),
  cursor: z.string().nullable().optional()
    .describe('With limit or cursor: where the next page starts, null after the last; absent otherwise'),
});

export const postPartSchema = z.object({
  id: z.string(),
  content: z.string(),
  image: z.array(mediaView),
  delay: z.number().int(),
  state: z.enum(postStates),
  releaseId: z.string().nullable(),
  releaseURL: z.string().nullable(),
  publishedAt: z.iso.datetime().nullable(),
  error: z.string().nullable(),
  errorCategory: z.enum(failureCategories).nullable()
    .describe('Why this part failed (see "Failure categories" in docs/api.md); null unless it failed'),
  attempts: z.array(z.object({
    at: z.iso.datetime(),
    category: z.enum(failureCategories),
    message: z.string().describe('The platform\'s message, or SPS\'s when it failed before the platform answered'),
    httpStatus: z.number().int().nullable().describe('The platform\'s HTTP status, when it answered one'),
  })).describe('This part\'s last failed publish attempts, oldest first (at most 10), retried ones included'),
});

const shortLinkView = z.object({
  code: z.string(),
  url: z.string().describe('The short address that replaced the link in the content'),
  target: z.string().describe('The original address it redirects to'),
  part: z.number().int().describe('Index in value[] of the part the link is in (its first one)'),
  channelId: z.string(),
  clicks: z.number().int().describe('Redirects answered by GET /l/:code so far'),
});

export const postDetailSchema = listedPostSchema.extend({
  value: z.array(postPartSchema).describe('The post and its thread parts, in order'),
  deletedAt: z.iso.datetime().nullable()
    .describe('When the post was deleted; only a post deleted with onPlatform=true is still answered after that'),
  removal: postRemovalSchema.nullable()
    .describe('Taking the post off its platform (DELETE /posts/:id?onPlatform=true); null otherwise'),
  shortLinks: z.array(shortLinkView)
    .describe('With shortLink: true, each link replaced in the post\'s parts and its clicks; [] otherwise'),
});

export const deletePostQuery = z.object({
  series: z.enum(['true', 'false']).optional()
    .describe('true: delete every occurrence of the post\'s series not yet published, ending the series'),
  onPlatform: z.enum(['true', 'false']).optional()
    .describe('true: also take every published part off the platform, where its API can (the answer\'s removal)'),
});

/** What a deletion answers: the post, and with onPlatform=true what becomes of each part on the platform. */
export const deletePostResponse = z.object({
  id: z.string(), deleted: z.literal(true),
  series: z.object({ seriesId: z.string(), deleted: z.number().int() }).optional()
    .describe('With series=true: the series and how many occurrences were deleted'),
  removal: postRemovalSchema.optional()
    .describe('With onPlatform=true: each part queued for removal, not_published, unconfirmed or unsupported'),
});

export const deleteGroupQuery = z.object({
  onPlatform: z.enum(['true', 'false']).optional()
    .describe('true: also take every published part of each post off its platform, where its API can'),
});

export const deleteGroupResponse = z.object({
  group: z.string(), deleted: z.number().int(), skipped: z.array(z.string()),
  removals: z.array(postRemovalSchema).optional()
    .describe('With onPlatform=true: one per deleted post (channel), what becomes of each part on its platform'),
});

export const groupParams = z.object({ group: z.string().min(1).max(100) });

export const changeStatusBody = z.object({ status: z.enum(['draft', 'schedule']) });

export const releaseIdBody = z.object({ releaseId: z.string().min(1).max(200) });
