import { z } from 'zod';
import type { DefaultJobOptions } from 'bullmq';
import type { PlatformCallRequest } from '../domain/channels/platform-call-request.ts';
import type { MediaJobRequest } from '../domain/media/media-job.ts';

/**
 * Every queue SPS runs, its job names and payload schemas. Queue and job names are persisted in
 * Redis: renaming one strands the jobs already waiting under the old name.
 * Payloads carry ids only; the worker loads current state from MongoDB.
 */
export const QueueName = {
  publish: 'publish',
  /**
   * Request/response calls to platforms: integration tools, recent content for "missing" posts;
   * and removals of deleted posts from their platforms (retried with the publish backoff).
   */
  platform: 'platform',
  /** Fetching remote media and inspecting stored media (ffprobe, poster frames). */
  media: 'media',
  /** Generating videos (POST /generate-video): scripts, narration, ffmpeg encodes; slow and CPU-heavy. */
  video: 'video',
  /**
   * Repeatable jobs: expired OAuth codes and dashboard sessions (no TTL indexes, rule 7), the sweep
   * that re-queues due posts whose publish job was lost, and the renewal of expiring OAuth tokens.
   */
  maintenance: 'maintenance',
  /** Reading each channel's and its recent posts' counters from the platforms (analytics). */
  analytics: 'analytics',
  /**
   * Signed webhook deliveries: one job per delivery attempt, queued when the delivery is written
   * (a retry delayed until it is due), apart from publishing so a slow receiver delays no post;
   * and a repeatable dispatcher that queues again the deliveries whose job was lost.
   */
  webhook: 'webhook',
} as const;
export type QueueName = (typeof QueueName)[keyof typeof QueueName];

const objectId = z.string().regex(/^[0-9a-f]{24}$/, 'must be a 24-character hex id');

export const publishPostPayload = z.object({
  organizationId: objectId,
  /** The root part of the post on one channel; its thread parts are loaded from it. */
  postId: objectId,
  /** The post's channel (posts never change channel): the worker reads it together with the post. */
  channelId: objectId.optional(),
  /** Times this job was delayed by a platform's rate limit (429 with a reset time); bounded by config. */
  rateLimitDelays: z.number().int().min(0).optional(),
});
export type PublishPostPayload = z.infer<typeof publishPostPayload>;

export const platformCallPayload = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tool'), organizationId: objectId, channelId: objectId, methodName: z.string().min(1).max(100), data: z.record(z.string(), z.unknown()) }),
  z.object({ kind: z.literal('recent-content'), organizationId: objectId, channelId: objectId }),
]) satisfies z.ZodType<PlatformCallRequest>;
export type PlatformCallPayload = z.infer<typeof platformCallPayload>;

/** A deleted post whose published parts are to be taken off its platform (shared/domain/removal/). */
export const removePostPayload = z.object({
  organizationId: objectId,
  /** The root part; its parts' removal states say what is left to do. */
  postId: objectId,
});
export type RemovePostPayload = z.infer<typeof removePostPayload>;

/** One removal job per post: asking again while it waits or runs adds nothing. */
export const removePostJobId = (postId: string): string => `removal-${postId}`;

export const mediaJobPayload = z.object({
  organizationId: objectId,
  mediaId: objectId,
  /** import: fetch `sourceUrl` first; inspect: the bytes are already stored. */
  kind: z.enum(['import', 'inspect']),
}) satisfies z.ZodType<MediaJobRequest>;
export type MediaJobPayload = z.infer<typeof mediaJobPayload>;

export const deliverWebhookPayload = z.object({
  deliveryId: objectId,
  /** Attempts the delivery had when the job was added: the job claims only that state of it. */
  attempt: z.number().int().min(0),
});
export type DeliverWebhookPayload = z.infer<typeof deliverWebhookPayload>;

/** One job per delivery attempt: queueing the attempt again (the dispatcher's safety net) adds nothing. */
export const webhookJobId = (deliveryId: string, attempt: number): string => `webhook-${deliveryId}-${attempt}`;

/** One processing job per media record, whatever asks for it twice. */
export const mediaJobId = (mediaId: string): string => `media-${mediaId}`;

export const gatherAnalyticsPayload = z.object({
  channelId: objectId,
  /** Times the platform's rate limit delayed this gathering; bounded like publish jobs'. */
  rateLimitDelays: z.number().int().min(0).optional(),
});
export type GatherAnalyticsPayload = z.infer<typeof gatherAnalyticsPayload>;

/** One gathering per channel at a time: asking again while one waits or runs adds nothing. */
export const gatherAnalyticsJobId = (channelId: string): string => `analytics-${channelId}`;

/** The generated video's media record holds what to make; the job names it only. */
export const videoJobPayload = z.object({ organizationId: objectId, mediaId: objectId });
export type VideoJobPayload = z.infer<typeof videoJobPayload>;

/** One generation per media record. */
export const videoJobId = (mediaId: string): string => `video-${mediaId}`;

export const jobs = {
  publishPost: { queue: QueueName.publish, name: 'publish-post', payload: publishPostPayload },
  platformCall: { queue: QueueName.platform, name: 'platform-call', payload: platformCallPayload },
  removePost: { queue: QueueName.platform, name: 'remove-post', payload: removePostPayload },
  processMedia: { queue: QueueName.media, name: 'process-media', payload: mediaJobPayload },
  generateVideo: { queue: QueueName.video, name: 'generate-video', payload: videoJobPayload },
  cleanExpired: { queue: QueueName.maintenance, name: 'clean-expired', payload: z.object({}) },
  sweepPublications: { queue: QueueName.maintenance, name: 'sweep-publications', payload: z.object({}) },
  sweepRemovals: { queue: QueueName.maintenance, name: 'sweep-removals', payload: z.object({}) },
  refreshTokens: { queue: QueueName.maintenance, name: 'refresh-tokens', payload: z.object({}) },
  scheduleAnalytics: { queue: QueueName.maintenance, name: 'schedule-analytics', payload: z.object({}) },
  gatherAnalytics: { queue: QueueName.analytics, name: 'gather-analytics', payload: gatherAnalyticsPayload },
  dispatchWebhooks: { queue: QueueName.webhook, name: 'dispatch-webhooks', payload: z.object({}) },
  deliverWebhook: { queue: QueueName.webhook, name: 'deliver-webhook', payload: deliverWebhookPayload },
} as const;

/** Deterministic: enqueueing the same post twice finds the existing job instead of adding one. */
export const publishJobId = (postId: string): string => `post-${postId}`;

export function defaultJobOptions(limits: { attempts: number; backoffMs: number }): DefaultJobOptions {
  return {
    attempts: limits.attempts,
    backoff: { type: 'exponential', delay: limits.backoffMs },
    // Finished jobs are kept briefly for Bull Board, then trimmed so Redis does not grow forever.
    removeOnComplete: { age: 24 * 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
  };
}
