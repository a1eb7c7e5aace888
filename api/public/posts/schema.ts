import { z } from 'zod';
import { isoDate } from '../../../shared/validation/iso-date.ts';

/** Bounds that keep one request from asking for unbounded work (ARCHITECTURE rule 6). */
export const postLimits = {
  channelsPerRequest: 50,
  partsPerPost: 100,
  mediaPerPart: 20,
  /** Listmonk newsletters allow 100 million characters; per-platform limits apply on top. */
  contentCharacters: 100_000_000,
  delayMinutes: 7 * 24 * 60,
} as const;

const mediaReference = z.object({
  id: z.string().min(1).max(100),
  path: z.string().min(1).max(2048),
  alt: z.string().max(1500).optional(),
  thumbnail: z.string().max(2048).optional(),
});

const postPart = z.object({
  content: z.string().max(postLimits.contentCharacters).default(''),
  id: z.string().max(100).optional(),
  delay: z.number().int().min(0).max(postLimits.delayMinutes).optional(),
  image: z.array(mediaReference).max(postLimits.mediaPerPart).default([]),
});

const channelPost = z.object({
  integration: z.object({ id: z.string().min(1).max(100) }),
  group: z.string().min(1).max(100).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  value: z.array(postPart).min(1, 'a post needs at least one part').max(postLimits.partsPerPost),
});

export const createPostsBody = z.object({
  type: z.enum(['draft', 'schedule', 'now']),
  date: isoDate.optional(),
  shortLink: z.boolean().optional(),
  tags: z.array(z.object({ value: z.string().max(100), label: z.string().max(100) })).max(50).default([]),
  posts: z.array(channelPost).min(1, 'name at least one channel in posts').max(postLimits.channelsPerRequest),
});
export type CreatePostsBody = z.infer<typeof createPostsBody>;
