import { allPlatforms } from '../../../shared/platforms/platforms.ts';
import { z } from 'zod';
import { boundedJsonObject } from '../common-schemas.ts';

/** `group` is the name Postiz clients send for the same filter (CONTRACT: GET /integrations). */
export const customerFilterQuery = z.object({
  customer: z.string().min(1).max(100).optional().describe('Only channels of this customer (see GET /groups)'),
  group: z.string().min(1).max(100).optional()
    .describe('The same filter as customer, under the name Postiz clients use'),
}).refine((query) => query.customer === undefined || query.group === undefined || query.customer === query.group, {
  path: ['group'], message: 'customer and group are the same filter: give one of them, or the same value in both',
});

export const integrationSchema = z.object({
  id: z.string(),
  name: z.string(),
  identifier: z.string().describe('Platform identifier, e.g. mastodon'),
  picture: z.string().nullable(),
  disabled: z.boolean(),
  refreshNeeded: z.boolean().describe('The platform rejected the credentials: reconnect the channel'),
  profile: z.string().nullable(),
  customer: z.object({ id: z.string(), name: z.string() }).optional(),
});

export const integrationSettingsResponse = z.object({
  output: z.object({
    rules: z.string(),
    maxLength: z.number().int(),
    settings: z.union([z.record(z.string(), z.unknown()), z.literal('No additional settings required')]).describe('JSON Schema of the post settings'),
    tools: z.array(z.object({
      methodName: z.string(),
      description: z.string(),
      dataSchema: z.array(z.object({ key: z.string(), type: z.string(), description: z.string() })),
    })),
  }),
});

export const triggerBody = z.object({
  methodName: z.string().min(1).max(100).describe('One of the tools listed by integration-settings'),
  // Queued as a job for the platform worker: bounded like post settings.
  data: boundedJsonObject({ maxDepth: 16, maxBytes: 64 * 1024 }).optional()
    .describe('The tool\'s input fields; at most 16 levels deep and 64 KB'),
});

export const deletedResponse = z.object({ id: z.string(), deleted: z.literal(true) });

/** A string rather than an enum, so an unknown platform is 404 (not found) rather than 400. */
export const providerParams = z.object({
  provider: z.string().min(1).max(50)
    .describe(`Platform identifier, one of: ${allPlatforms().map((platform) => platform.identifier).join(', ')}`),
});

export const connectQuery = z.object({
  refresh: z.string().min(1).max(100).optional()
    .describe('Id of a channel to reconnect in place: it keeps its id, posts and settings'),
  instance: z.string().min(1).max(2000).optional()
    .describe('The user\'s server, for platforms that run on many (Mastodon), e.g. https://mastodon.social'),
  customer: z.string().min(1).max(100).optional().describe('Customer the new channel belongs to; created when new'),
});
