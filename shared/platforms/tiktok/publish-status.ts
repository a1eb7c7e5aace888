import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, type TikTokApi } from './tiktok-api.ts';

/**
 * A publish's life after init (oauth-majors.md 8.2, step 4): `status/fetch` read until
 * PUBLISH_COMPLETE, SEND_TO_USER_INBOX or FAILED. A public post is moderated before TikTok
 * exposes its id (`publicaly_available_post_id`, TikTok's spelling), usually within a minute.
 */

const postId = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(String);

const statusAnswer = z.object({
  status: z.enum(['PROCESSING_UPLOAD', 'PROCESSING_DOWNLOAD', 'SEND_TO_USER_INBOX', 'PUBLISH_COMPLETE', 'FAILED']),
  fail_reason: z.string().optional(),
  publicaly_available_post_id: z.array(postId).optional(),
  uploaded_bytes: z.number().optional(),
  downloaded_bytes: z.number().optional(),
});

export type PublishStatus = z.infer<typeof statusAnswer>;

/** A publish TikTok is done with: a post (with its id once exposed), an inbox share, or a failure. */
export type Settled =
  | { kind: 'posted'; postId: string | null }
  | { kind: 'inbox' }
  | { kind: 'failed'; failReason: string | undefined };

/**
 * How often the status is read: after `firstWaitMs`, doubling up to `maxIntervalMs` (TikTok
 * allows 30 reads a minute per token), for at most `maxWaitMs` of processing; a public post's id
 * is waited for `publicIdWaitMs` more.
 */
export interface StatusPolling {
  firstWaitMs: number;
  maxIntervalMs: number;
  maxWaitMs: number;
  publicIdWaitMs: number;
}

export const defaultStatusPolling: StatusPolling = {
  firstWaitMs: 1_000,
  maxIntervalMs: 8_000,
  maxWaitMs: 5 * 60_000,
  publicIdWaitMs: 60_000,
};

/** A publish still processing when the wait ends is read again by the job's next attempt. */
const stillProcessingRetryMs = 60_000;

/** TikTok's fail_reason values, in words a user can act on. */
const failReasons: Record<string, string> = {
  file_format_check_failed: 'TikTok could not read the file\'s format (MP4, WebM or MOV videos; JPEG or WebP photos)',
  duration_check_failed: 'the video is shorter or longer than TikTok allows for this account',
  frame_rate_check_failed: 'the video\'s frame rate is outside the 23 to 60 fps TikTok takes',
  picture_size_check_failed: 'the picture size is outside what TikTok takes (360 to 4096 px a side; photos up '
    + 'to 1080p and 20 MB)',
  video_pull_failed: 'TikTok could not download the video from its public URL',
  photo_pull_failed: 'TikTok could not download the photos from their public URL',
  internal: 'TikTok had an internal problem processing the post',
};

export function failReasonMessage(reason: string | undefined): string {
  const code = reason ?? 'unknown';
  const words = failReasons[code]
    ?? (code.startsWith('spam_risk') ? 'TikTok refused the post as a spam risk' : 'TikTok could not publish the post');
  return `${words} (${code})`;
}

export function readStatus(api: TikTokApi, publishId: string): Promise<PublishStatus> {
  const call = { method: 'POST', path: '/v2/post/publish/status/fetch/', json: { publish_id: publishId } } as const;
  return api(call, statusAnswer, 'a publish status');
}

/**
 * Reads the status until TikTok is done with the publish. While a public post's id is not
 * exposed yet, waits `publicIdWaitMs` for it, then settles without it. Still processing after
 * `maxWaitMs`: retryable, so the job's next attempt reads the same publish again.
 */
export async function settle(
  api: TikTokApi,
  publishId: string,
  first: PublishStatus | null,
  polling: StatusPolling,
  awaitPublicId: boolean,
): Promise<Settled> {
  const start = Date.now();
  let completedAt: number | null = null;
  let wait = polling.firstWaitMs;
  let status = first ?? await readStatus(api, publishId);
  for (;;) {
    if (status.status === 'FAILED') return { kind: 'failed', failReason: status.fail_reason };
    if (status.status === 'SEND_TO_USER_INBOX') return { kind: 'inbox' };
    const now = Date.now();
    if (status.status === 'PUBLISH_COMPLETE') {
      const id = status.publicaly_available_post_id?.[0] ?? null;
      completedAt ??= now;
      if (id !== null || !awaitPublicId || now + wait > completedAt + polling.publicIdWaitMs) {
        return { kind: 'posted', postId: id };
      }
    } else if (now + wait > start + polling.maxWaitMs) {
      const message = `TikTok is still processing publish ${publishId}; SPS will look again`;
      throw new PlatformError({ kind: 'retryable', provider, message, retryAfterMs: stillProcessingRetryMs });
    }
    await sleep(wait);
    wait = Math.min(wait * 2, polling.maxIntervalMs);
    status = await readStatus(api, publishId);
  }
}
