import { z } from 'zod';

/**
 * The part of GET /api/v2/instance that tells clients the instance's own limits. Public: no token
 * needed. Instances differ (mastodon.social allows 500 characters, many allow thousands).
 */
export const instanceLimitsResponse = z.object({
  domain: z.string().optional(),
  configuration: z.object({
    statuses: z.object({
      max_characters: z.number().int().positive(),
      max_media_attachments: z.number(),
      characters_reserved_per_url: z.number().optional(),
    }),
    media_attachments: z.object({ supported_mime_types: z.array(z.string()).optional() }).optional(),
  }),
});
