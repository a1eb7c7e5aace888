import { z } from 'zod';
import { failureCategories } from '../../../shared/domain/publishing/failure-category.ts';
import {
  webhookEventDescriptions, type WebhookEventData, type WebhookEventType,
} from '../../../shared/domain/webhooks/webhook-events.ts';
import { eventPageLimits } from '../../../shared/domain/events/event-feed.ts';
import { mediaSchema } from '../uploads/schema.ts';
import { postRemovalSchema } from '../posts/removal-schema.ts';

export const failureCategorySchema = z.enum(failureCategories)
  .describe('Why it failed: see "Failure categories" in docs/api.md');

const postRef = {
  postId: z.string().describe('The post (its root part), as POST /posts answered it'),
  group: z.string(),
  channelId: z.string(),
  provider: z.string().describe('The platform identifier, e.g. mastodon'),
};

const postChange = z.object({
  ...postRef,
  state: z.string().describe('The post\'s state after the change: DRAFT, QUEUE, PUBLISHED or ERROR'),
  publishDate: z.iso.datetime(),
});

const attemptSchema = z.object({
  partId: z.string(),
  at: z.iso.datetime(),
  category: failureCategorySchema,
  message: z.string().describe('The platform\'s message, or SPS\'s when it failed before the platform answered'),
});

/** The `data` of each event type: the shapes webhook bodies and GET /events carry. */
export const eventDataSchemas: { [T in WebhookEventType]: z.ZodType<WebhookEventData[T]> } = {
  'post.published': z.object({ ...postRef, releaseURL: z.string(), publishedAt: z.iso.datetime() }),
  'post.failed': z.object({
    ...postRef,
    error: z.string(),
    category: failureCategorySchema,
    attempts: z.array(attemptSchema).describe('The post\'s last failed attempts, oldest first, at most 10'),
  }),
  'channel.disconnected': z.object({
    channelId: z.string(), provider: z.string(), name: z.string(), reason: z.string(),
  }),
  'media.ready': mediaSchema,
  'media.failed': mediaSchema,
  'video.ready': mediaSchema,
  'post.created': postChange,
  'post.updated': postChange,
  'post.deleted': postChange.extend({
    deletedAt: z.iso.datetime(),
    removal: postRemovalSchema.optional()
      .describe('With onPlatform=true: told once every part is settled, with what became of each on the platform'),
  }),
  'post.retrying': z.object({
    ...postRef,
    error: z.string(),
    category: failureCategorySchema,
    nextAttemptAt: z.iso.datetime().nullable()
      .describe('When the next attempt is due, when known (a platform\'s rate-limit reset)'),
  }),
  'channel.refreshed': z.object({
    channelId: z.string(), provider: z.string(), name: z.string(),
    refreshedAt: z.iso.datetime(), expiresAt: z.iso.datetime().nullable(),
  }),
};

function eventSchema<T extends WebhookEventType>(type: T) {
  return z.object({
    cursor: z.string().describe('Where this event is in the feed: pass it as `after` to read the events after it'),
    id: z.string().describe('The event id, the same as its webhook deliveries carry (evt_...)'),
    type: z.literal(type),
    createdAt: z.iso.datetime(),
    organizationId: z.string(),
    data: eventDataSchemas[type],
  }).describe(`${type}: ${webhookEventDescriptions[type]}`);
}

const eventTypes = Object.keys(eventDataSchemas) as WebhookEventType[];
const [firstType, ...otherTypes] = eventTypes.map(eventSchema);
if (firstType === undefined) throw new Error('there is at least one event type');

export const feedEventSchema = z.discriminatedUnion('type', [firstType, ...otherTypes]);

export const listEventsQuery = z.object({
  after: z.string()
    .regex(/^[0-9a-fA-F]{24}$/, 'after must be an event\'s cursor (24 hexadecimal digits), as GET /events answered it')
    .optional()
    .describe('The cursor of the last event read; without it, the feed starts at the oldest event kept'),
  limit: z.string({ error: 'limit must be given once, as a whole number' })
    .regex(/^\d+$/, 'limit must be a whole number')
    .transform(Number)
    .refine(
      (limit) => limit >= 1 && limit <= eventPageLimits.max,
      `limit must be between 1 and ${eventPageLimits.max}`,
    )
    .optional()
    .transform((limit) => limit ?? eventPageLimits.default)
    .describe(`Events a page, 1 to ${eventPageLimits.max}; ${eventPageLimits.default} unless given`),
});

export const listEventsResponse = z.object({
  events: z.array(feedEventSchema).describe('Oldest first'),
  cursor: z.string().nullable()
    .describe('Pass as `after` next time: the last event\'s cursor, or the one given when nothing is new'),
  hasMore: z.boolean().describe('The page is full: ask again with `cursor` at once'),
});
