import path from 'node:path';
import { expect } from 'vitest';
import { probeMedia, type MediaProbe } from '../../shared/media/media-probe.ts';
import { api } from './fixtures.ts';
import { waitFor } from './stack.ts';
import type { TestContext } from './test-context.ts';

export interface MediaProgress {
  stage: string;
  percent: number;
}

/** A media as GET /media/:id shows it, with what the video tests read. */
export interface ShownMedia {
  id: string;
  status: 'pending' | 'ready' | 'failed';
  path: string | null;
  mimeType: string | null;
  width?: number;
  height?: number;
  videoCodec?: string;
  audioCodec?: string;
  durationSeconds?: number;
  error?: string;
  reason?: string;
  progress?: MediaProgress;
}

/** Polls GET /media/:id until the media is settled; returns it with every progress it showed meanwhile. */
export async function settledMedia(
  baseUrl: string,
  apiKey: string,
  mediaId: string,
): Promise<{ media: ShownMedia; progress: MediaProgress[] }> {
  const progress: MediaProgress[] = [];
  const media = await waitFor(async () => {
    const shown = await api(baseUrl, apiKey, `/api/public/v1/media/${mediaId}`);
    expect(shown.status).toBe(200);
    const body = shown.body as ShownMedia;
    if (body.progress !== undefined) progress.push(body.progress);
    return body.status === 'pending' ? undefined : body;
  }, { what: `media ${mediaId} to be generated`, timeoutMs: 60_000 });
  return { media, progress };
}

/** What ffprobe reads of the file a media stored (local storage: the test context's uploads folder). */
export async function storedFileFacts(ctx: TestContext, mediaId: string): Promise<MediaProbe> {
  const stored = await ctx.db.media.findById(mediaId).lean();
  const key = stored?.storageKey;
  if (key === null || key === undefined) throw new Error(`media ${mediaId} has no stored file`);
  return probeMedia(path.join(ctx.config.UPLOADS_DIR, key), { timeoutMs: 10_000 });
}

/** The facts every generated video has, whichever the type: MP4 with H.264 Main, AAC, 30 fps. */
export function expectPlatformReadyVideo(
  facts: MediaProbe,
  size: { width: number; height: number },
  maxSeconds: number,
): void {
  expect(facts).toMatchObject({ videoCodec: 'h264', videoProfile: 'Main', audioCodec: 'aac', frameRate: 30, ...size });
  expect(facts.durationSeconds).toBeGreaterThan(0.5);
  expect(facts.durationSeconds).toBeLessThanOrEqual(maxSeconds + 0.1);
}
