import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../domain/organizations/organizations.ts';
import { api } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

/**
 * TikTok pulls photos from their URL and receives videos' bytes (oauth-majors.md 8.2). With
 * uploads served at a loopback address and TikTok at its public host, a photo post would fail at
 * publish time, so POST /posts refuses it at once; a video post is fine.
 */
describe('POST /posts with media for TikTok when media are served at a private address', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey = '';
  let channelId = '';
  const media: Record<'photo' | 'video', { id: string; path: string }> = {
    photo: { id: '', path: '' }, video: { id: '', path: '' },
  };

  beforeAll(async () => {
    ctx = await createTestContext({ UPLOADS_PUBLIC_URL: 'http://127.0.0.1:5999/uploads' });
    stack = await startStack(ctx, { workers: false });
    const org = await createOrganization(ctx.db, ctx.secrets, { name: 'TikTok media reach' });
    apiKey = org.apiKey;
    const channel = await ctx.db.channels.create({
      organizationId: org.organizationId, provider: 'tiktok', name: 'Our TikTok', accountId: '-000ada',
      tokenSealed: ctx.secrets.seal('token'),
    });
    channelId = channel._id.toString();
    const stored = (name: string, mimeType: string, extra: Record<string, number>) => ctx.db.media.create({
      organizationId: org.organizationId, name, status: 'ready', storageKey: name,
      path: `http://127.0.0.1:5999/uploads/${name}`, mimeType, size: 20_000, ...extra,
    });
    const photo = await stored('photo.jpg', 'image/jpeg', { width: 1080, height: 1080 });
    const video = await stored('clip.mp4', 'video/mp4', { width: 1080, height: 1920, durationSeconds: 12 });
    media.photo = { id: photo._id.toString(), path: photo.path ?? '' };
    media.video = { id: video._id.toString(), path: video.path ?? '' };
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const post = (image: { id: string; path: string }) => api(stack.baseUrl, apiKey, '/api/public/v1/posts', {
    method: 'POST',
    body: {
      type: 'schedule',
      date: new Date(Date.now() + 3_600_000).toISOString(),
      posts: [{
        integration: { id: channelId },
        settings: { privacy_level: 'SELF_ONLY' },
        value: [{ content: 'On TikTok', image: [image] }],
      }],
    },
  });

  it('answers 422 media_not_public for a photo post, naming the channel, and stores nothing', async () => {
    const response = await post(media.photo);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      error: 'media_not_public',
      details: [{
        path: 'posts.0.value.0.image',
        message: 'TikTok channel "Our TikTok": TikTok fetches images from their URL, and this server serves them at a '
          + 'private address',
      }],
    });
    expect(await ctx.db.posts.countDocuments({})).toBe(0);
  });

  it('accepts a video post: TikTok receives a video\'s bytes', async () => {
    const response = await post(media.video);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  });
});
