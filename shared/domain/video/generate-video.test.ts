import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { videoGenerationSettings } from '../../../workers/video-generation-settings.ts';
import { createStorage } from '../../storage/create-storage.ts';
import { createOrganization } from '../organizations/organizations.ts';
import { listNotifications } from '../notifications/notifications.ts';
import { generateVideo, type VideoGenerationDeps, type VideoGenerationSettings } from './generate-video.ts';
import { recordVideoRequest } from './request-video.ts';
import { WebhookOutbox } from '../webhooks/webhook-outbox.ts';

/**
 * The video worker's failures that are the server's, not the request's: a tool past its time
 * limit, a speech engine or a font that is not installed. Each fails the media with its reason
 * and tells the organization; none is left pending.
 */
describe('generating a video when the server cannot', () => {
  let ctx: TestContext;
  let deps: VideoGenerationDeps;
  let organizationId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    deps = {
      db: ctx.db,
      storage: await createStorage(ctx.config),
      limits: { maxImageBytes: ctx.config.MEDIA_MAX_IMAGE_BYTES, maxVideoBytes: ctx.config.MEDIA_MAX_VIDEO_BYTES },
      // A generation fetches nothing: these are only what the media processing deps must hold.
      fetch: {
        isAllowedAddress: () => false, allowHttp: false, connectTimeoutMs: 1, totalTimeoutMs: 1, maxRedirects: 0,
        userAgent: 'test',
      },
      mediaToolTimeoutMs: 10_000,
      mediaTools: { ffprobe: 'ffprobe', ffmpeg: 'ffmpeg' },
      video: videoGenerationSettings(ctx.config),
      webhooks: new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() }),
    };
    ({ organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'Tea films' }));
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  async function generateWith(video: Partial<VideoGenerationSettings>) {
    const catalog = deps.video.catalog;
    const request = { type: 'slides', output: 'vertical' as const, customParams: { text: 'Tea grows on the hills.' } };
    const media = await recordVideoRequest({ db: ctx.db, catalog }, organizationId, request);
    return generateVideo({ ...deps, video: { ...deps.video, ...video } }, media._id.toString(), ctx.logger);
  }

  const notifications = async () =>
    (await listNotifications(ctx.db, organizationId, 0)).notifications.map((notification) => notification.content);

  it('fails the media at the time limit of a generation\'s tools (VIDEO_FFMPEG_TIMEOUT_MS)', async () => {
    // Long enough for nothing, so the run that is killed is whichever comes first.
    const failed = await generateWith({ toolTimeoutMs: 1 });
    const reason = 'video_generation_failed:timeout';
    expect(failed).toMatchObject({ status: 'failed', errorReason: reason, storageKey: null });
    expect(failed?.error).toMatch(/^(espeak-ng|ffmpeg) took longer than the 0 s allowed to make the video$/);
    expect(await notifications()).toContain(`Video generation failed: ${failed?.error ?? ''}`);
  });

  it('fails the media as unavailable, naming what to install, when espeak-ng or the font is missing', async () => {
    const mute = await generateWith({ espeak: '/nonexistent/espeak-ng' });
    expect(mute).toMatchObject({ status: 'failed', errorReason: 'video_generation_unavailable' });
    expect(mute?.error).toContain('install the espeak-ng package');
    const fontless = await generateWith({ fontFile: '/nonexistent/font.ttf' });
    expect(fontless).toMatchObject({ status: 'failed', errorReason: 'video_generation_unavailable' });
    expect(fontless?.error).toContain('install fonts-dejavu-core');
  });
});
