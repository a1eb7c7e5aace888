import { z } from 'zod';
import { mediaPageLimits } from '../../../shared/domain/media/media-library.ts';

export const mediaSchema = z.object({
  id: z.string(),
  name: z.string(),
  originalName: z.string().nullable(),
  path: z.string().nullable().describe('Public URL of the file'),
  thumbnail: z.string().nullable().describe('Poster frame of a video'),
  alt: z.string().nullable(),
  mimeType: z.string().nullable(),
  size: z.number().int().nullable(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  durationSeconds: z.number().optional(),
  videoCodec: z.string().optional(),
  audioCodec: z.string().optional(),
  status: z.enum(['pending', 'ready', 'failed']),
  error: z.string().optional(),
  reason: z.string().optional().describe('Machine-readable cause of a failure, e.g. fetch_failed:timeout'),
  progress: z.object({ stage: z.string(), percent: z.number().min(0).max(100) }).optional()
    .describe('While a generated video is pending: the stage it is at (script, images, narration, render, inspect)'),
});

export const pendingMediaSchema = z.object({ id: z.string(), status: z.literal('pending'), statusUrl: z.string() });

export const uploadFromUrlBody = z.object({ url: z.string().min(1).max(2048).describe('Public https URL of an image or MP4 video') });

const postIds = z.array(z.string());

export const mediaUseSchema = z.object({
  scheduled: postIds.describe('Scheduled posts that attach it: it cannot be deleted while there are any'),
  drafts: postIds,
  published: postIds,
}).describe('Posts (root post ids) whose parts attach the media, by state');

export const listMediaQuery = z.object({
  limit: z.coerce.number().int().min(1).max(mediaPageLimits.max).optional()
    .describe(`Page size, ${String(mediaPageLimits.default)} unless given (at most ${String(mediaPageLimits.max)})`),
  cursor: z.string().min(1).max(100).optional().describe('The `cursor` of the previous page, to read the next'),
});

export const listMediaResponse = z.object({
  media: z.array(mediaSchema.extend({ usedBy: mediaUseSchema })).describe('Newest first'),
  cursor: z.string().nullable().describe('Where the next page starts; null after the last'),
});

export const deletedMediaResponse = z.object({ id: z.string(), deleted: z.literal(true) });
