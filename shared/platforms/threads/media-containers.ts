import { z } from 'zod';
import type { PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, type ThreadsGraph } from './threads-graph.ts';

/**
 * Threads media containers (`POST /me/threads`), the step before publishing: what each kind of
 * part sends, and waiting for a container to be ready. Facts: ../shared/platforms/oauth-majors.md,
 * sections 6.2 and 6.3.
 */

export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

const created = z.object({ id: z.string().min(1) });
const statusAnswer = z.object({
  status: z.enum(['IN_PROGRESS', 'FINISHED', 'ERROR', 'EXPIRED', 'PUBLISHED']),
  error_message: z.string().optional(),
});

/**
 * How often a container's status is read: at once, then after `firstWaitMs`, doubling up to
 * `maxIntervalMs`, for at most `maxWaitMs`. Meta suggests once a minute for up to five minutes;
 * text and image containers are usually ready at the first read, videos take longer.
 */
export interface ContainerPolling {
  firstWaitMs: number;
  maxIntervalMs: number;
  maxWaitMs: number;
}

export const defaultContainerPolling: ContainerPolling = {
  firstWaitMs: 1_000,
  maxIntervalMs: 30_000,
  maxWaitMs: 5 * 60_000,
};

/** A container still processing when the wait ends: the job tries again later, from the same container. */
const stillProcessingRetryMs = 60_000;

/** Threads' error_message values for a container it could not process, in words a user can act on. */
const containerErrors: Record<string, string> = {
  FAILED_DOWNLOADING_VIDEO: 'Threads could not download the video from its public URL',
  FAILED_PROCESSING_AUDIO: 'Threads could not process the video\'s audio',
  FAILED_PROCESSING_VIDEO: 'Threads could not process the video',
  INVALID_ASPEC_RATIO: 'the video\'s aspect ratio is not accepted by Threads',
  INVALID_BIT_RATE: 'the video\'s bit rate is not accepted by Threads',
  INVALID_DURATION: 'the video\'s duration is not accepted by Threads',
  INVALID_FRAME_RATE: 'the video\'s frame rate is not accepted by Threads',
  INVALID_AUDIO_CHANNELS: 'the video\'s audio channels are not accepted by Threads',
  INVALID_AUDIO_CHANNEL_LAYOUT: 'the video\'s audio channel layout is not accepted by Threads',
};

function containerFailure(errorMessage: string | undefined): PlatformError {
  const code = errorMessage ?? 'UNKNOWN';
  const words = containerErrors[code] ?? 'Threads could not process the media';
  return new PlatformError({ kind: 'permanent', provider, message: `${words} (${code})` });
}

export async function readContainerStatus(
  graph: ThreadsGraph,
  containerId: string,
): Promise<{ status: ContainerStatus; errorMessage: string | undefined }> {
  const answer = await graph.get(
    `/${encodeURIComponent(containerId)}`,
    { fields: 'status,error_message' },
    statusAnswer,
    'a container status',
  );
  return { status: answer.status, errorMessage: answer.error_message };
}

const sleep = (ms: number) => new Promise<void>((resolve) => { setTimeout(resolve, ms); });

/**
 * Reads the container's status until it leaves IN_PROGRESS. ERROR fails the part with Threads'
 * reason; a container still processing at the end of the wait is retried later (it stays in the
 * part's checkpoint, so the retry waits for the same one).
 */
export async function settleContainer(
  graph: ThreadsGraph,
  containerId: string,
  polling: ContainerPolling,
): Promise<'FINISHED' | 'EXPIRED' | 'PUBLISHED'> {
  const deadline = Date.now() + polling.maxWaitMs;
  let wait = polling.firstWaitMs;
  for (;;) {
    const { status, errorMessage } = await readContainerStatus(graph, containerId);
    if (status === 'ERROR') throw containerFailure(errorMessage);
    if (status !== 'IN_PROGRESS') return status;
    if (Date.now() + wait > deadline) {
      const message = `Threads is still processing the media of container ${containerId}; SPS will look again`;
      throw new PlatformError({ kind: 'retryable', provider, message, retryAfterMs: stillProcessingRetryMs });
    }
    await sleep(wait);
    wait = Math.min(wait * 2, polling.maxIntervalMs);
  }
}

export async function createContainer(graph: ThreadsGraph, parameters: Record<string, string>): Promise<string> {
  return (await graph.post('/me/threads', parameters, created, 'a container')).id;
}

/** The container fields of one file: the URL Threads pulls it from and its description. */
export function mediaParameters(media: PublishMedia): Record<string, string> {
  const source: Record<string, string> = media.kind === 'video'
    ? { media_type: 'VIDEO', video_url: media.url }
    : { media_type: 'IMAGE', image_url: media.url };
  if (media.alt !== null && media.alt !== '') source.alt_text = media.alt;
  return source;
}
