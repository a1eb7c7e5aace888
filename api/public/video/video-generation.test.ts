import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { allPlatforms } from '../../../shared/platforms/platforms.ts';
import { videoProblems } from '../../../shared/platforms/kit/video-rules.ts';
import { QueueName } from '../../../shared/queue/queues.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import {
  expectPlatformReadyVideo, settledMedia, storedFileFacts, type MediaProgress, type ShownMedia,
} from '../../../test/support/generated-video.ts';
import { publishNow, settledParts, uploadFile } from '../../../test/support/publish-now.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';
import { makeSmallMedia } from '../../../test/support/small-media.ts';

const maxSeconds = 3;

/**
 * The built-in `slides` generator through the whole stack: POST /generate-video, the video
 * worker (espeak-ng narration, ffmpeg captions and encode, then the usual inspection), GET
 * /media/:id while it works, and a post that publishes the video to Mastodon's simulator. The
 * wait is 1 ms here, so every request takes the 202 path and the test follows the progress.
 */
describe('POST /generate-video with the built-in slides generator', () => {
  const world = useSimulatedStack({
    overrides: { VIDEO_WAIT_MS: '1', VIDEO_MAX_DURATION_SECONDS: String(maxSeconds), VIDEO_MAX_TEXT_CHARS: '300' },
  });
  const small = makeSmallMedia();
  let org: { apiKey: string; channelId: string; organizationId: string };
  let videoQueue: Queue;
  let queueConnection: Redis;

  beforeAll(async () => {
    org = await organizationWithMastodon(world.ctx, world.simulator.origin, world.simulator.addAccount('films'));
    queueConnection = new Redis(world.ctx.config.REDIS_URL, { maxRetriesPerRequest: null });
    videoQueue = new Queue(QueueName.video, { connection: queueConnection, prefix: world.ctx.config.QUEUE_PREFIX });
    // An integrator listening for generated videos (nothing answers there: only the outbox is read).
    const endpoint = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/webhooks', {
      method: 'POST', body: { url: 'http://127.0.0.1:9/videos', events: ['video.ready'] },
    });
    expect(endpoint.status).toBe(201);
  });
  afterAll(async () => {
    await videoQueue.close();
    await queueConnection.quit();
    small.remove();
  });

  const generate = (apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
    api(world.stack.baseUrl, apiKey, '/api/public/v1/generate-video', { method: 'POST', body, headers });

  async function generated(
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ media: ShownMedia; progress: MediaProgress[] }> {
    const answer = await generate(org.apiKey, body, headers);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const pending = answer.body as { id: string; status: string; statusUrl: string };
    expect(pending.status).toBe('pending');
    expect(pending.statusUrl).toMatch(new RegExp(`/public/v1/media/${pending.id}$`));
    return settledMedia(world.stack.baseUrl, org.apiKey, pending.id);
  }

  it('makes a vertical video from text and a library image, and publishes it to Mastodon', async () => {
    const image = await uploadFile(world.stack.baseUrl, org.apiKey, small.png);
    const { media, progress } = await generated({
      type: 'slides', output: 'vertical',
      customParams: { text: 'Tea grows.\n\nThen, picked.', images: [image.id], style: 'bold' },
    });
    expect(media, JSON.stringify(media)).toMatchObject({
      status: 'ready', mimeType: 'video/mp4', width: 1080, height: 1920, videoCodec: 'h264',
    });
    expect(media.progress).toBeUndefined();
    expect(progress.length).toBeGreaterThan(0);
    const percents = progress.map((step) => step.percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expectPlatformReadyVideo(await storedFileFacts(world.ctx, media.id), { width: 1080, height: 1920 }, maxSeconds);

    // Integrators subscribed to video.ready hear of it (the outbox holds the delivery).
    const announced = await world.ctx.db.webhookDeliveries.findOne({ event: 'video.ready' }).lean();
    expect(JSON.parse(announced?.body ?? '{}')).toMatchObject({ type: 'video.ready', data: { id: media.id } });

    const video = { id: media.id, path: media.path ?? '' };
    const postId = await publishNow(world.stack.baseUrl, org, [{ content: 'How tea is made', image: [video] }]);
    const [root] = await settledParts(world.ctx.db, postId);
    expect([root?.state, root?.error ?? null]).toEqual(['PUBLISHED', null]);
    const sent = world.simulator.media.at(-1);
    const stored = await world.ctx.db.media.findById(media.id).lean();
    expect(sent?.type).toBe('video');
    const file = path.join(world.ctx.config.UPLOADS_DIR, stored?.storageKey ?? '');
    expect(sent?.bytes.equals(readFileSync(file))).toBe(true);
  });

  it('makes a horizontal video from text alone, once per Idempotency-Key, fit for every platform', async () => {
    const request = { type: 'slides', output: 'horizontal', customParams: { text: 'Hello there.', voice: 'en-gb' } };
    const key = { 'Idempotency-Key': 'horizontal-hello' };
    const { media } = await generated(request, key);
    const shown = { status: 'ready', width: 1920, height: 1080, audioCodec: 'aac' };
    expect(media, JSON.stringify(media)).toMatchObject(shown);
    const mediaCount = () => world.ctx.db.media.countDocuments({ organizationId: org.organizationId });
    const before = await mediaCount();
    const again = await generate(org.apiKey, request, key);
    expect([again.status, (again.body as { id: string }).id]).toEqual([202, media.id]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await mediaCount()).toBe(before);
    const facts = await storedFileFacts(world.ctx, media.id);
    expectPlatformReadyVideo(facts, { width: 1920, height: 1080 }, maxSeconds);
    // At the default cap (60 s), in either orientation, no platform's video rules refuse what is generated.
    for (const size of [{ width: 1920, height: 1080 }, { width: 1080, height: 1920 }]) {
      const video = { ...facts, ...size, kind: 'video' as const, mimeType: 'video/mp4', durationSeconds: 60 };
      for (const platform of allPlatforms()) {
        expect(videoProblems(platform, { ...video, sizeBytes: 1 }), platform.identifier).toEqual([]);
      }
    }
  });

  it('refuses bad requests with a code before anything is recorded or queued', async () => {
    const other = await createOrganization(world.ctx.db, world.ctx.secrets, { name: 'Another org' });
    const theirs = await uploadFile(world.stack.baseUrl, other.apiKey, small.png);
    const clip = await uploadFile(world.stack.baseUrl, org.apiKey, small.mp4);
    const mediaCount = () => world.ctx.db.media.countDocuments({ organizationId: org.organizationId });
    const before = { media: await mediaCount(), jobs: await videoQueue.count() };
    const slides = (customParams: unknown) => ({ type: 'slides', output: 'vertical', customParams });
    const refusals: [unknown, number, string, string?][] = [
      [{ type: 'cartoon', output: 'vertical', customParams: { text: 'Hi.' } }, 400, 'unknown_video_type'],
      [{ type: 'slides', output: 'vertical' }, 400, 'validation_failed', 'customParams.text'],
      [slides({ text: 'Hi.', speed: 3 }), 400, 'validation_failed'],
      [{ type: 'slides', output: 'square', customParams: { text: 'Hi.' } }, 400, 'validation_failed', 'output'],
      [slides({ text: 'x'.repeat(301) }), 400, 'validation_failed', 'customParams.text'],
      // Within the characters allowed, but far longer to narrate than the 3 seconds allowed.
      [slides({ text: 'word '.repeat(40) }), 400, 'validation_failed', 'customParams.text'],
      [slides({ text: 'Hi.', images: [theirs.id] }), 400, 'unknown_media', 'customParams.images.0'],
      [slides({ text: 'Hi.', images: [clip.id] }), 400, 'unknown_media', 'customParams.images.0'],
      // More images than the text has scenes.
      [slides({ text: 'Hi.\n\nHo.', images: [theirs.id, theirs.id, theirs.id] }), 400, 'validation_failed'],
      [slides({ text: 'Hi.', voice: 'klingon' }), 400, 'validation_failed', 'customParams.voice'],
      [{ type: 'ai-slides', output: 'vertical', customParams: { prompt: 'Tea' } }, 422, 'provider_not_configured'],
    ];
    for (const [body, status, code, detailPath] of refusals) {
      const answer = await generate(org.apiKey, body);
      expect([answer.status, (answer.body as { error: string }).error], JSON.stringify(body)).toEqual([status, code]);
      const details = (answer.body as { details?: { path: string }[] }).details ?? [];
      if (detailPath === undefined) continue;
      expect(details.map((detail) => detail.path), JSON.stringify(body)).toContain(detailPath);
    }
    expect(await mediaCount()).toBe(before.media);
    expect(await videoQueue.count()).toBe(before.jobs);
  });

  it('answers POST /video/function with the voices and caption styles of a type', async () => {
    const helper = (functionName: string, identifier: string) => api(
      world.stack.baseUrl, org.apiKey, '/api/public/v1/video/function',
      { method: 'POST', body: { functionName, identifier, params: {} } },
    );
    const output = (answer: { body: unknown }) => (answer.body as { output: { id: string }[] }).output;
    const voices = await helper('voices', 'slides');
    expect(voices.status).toBe(200);
    expect(output(voices)).toEqual(expect.arrayContaining([{ id: 'en-us', name: 'English (America)' }]));
    expect(output(await helper('styles', 'slides')).map((style) => style.id)).toEqual(['classic', 'bold', 'minimal']);
    expect((await helper('fonts', 'slides')).body).toMatchObject({ error: 'validation_failed' });
    expect((await helper('voices', 'cartoon')).body).toMatchObject({ error: 'unknown_video_type' });
    expect((await helper('voices', 'ai-slides')).body).toMatchObject({ error: 'provider_not_configured' });
  });
});
