import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { api } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

/**
 * Instagram and Threads pull attached files from their URL, and Warpcast and Nostr readers' apps
 * fetch the URLs the casts and notes link. With uploads served at a loopback
 * address (this test's UPLOADS_PUBLIC_URL) and the platforms at their public hosts, such a post
 * would fail at publish time: POST /posts refuses it at once instead.
 */
describe('POST /posts with media for a platform that fetches them by URL', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;
  const channels: Record<string, string> = {};
  let imageId: string;

  beforeAll(async () => {
    ctx = await createTestContext({ UPLOADS_PUBLIC_URL: 'http://127.0.0.1:5999/uploads' });
    stack = await startStack(ctx, { workers: false });
    const org = await createOrganization(ctx.db, ctx.secrets, { name: 'Media reach' });
    apiKey = org.apiKey;
    for (const provider of ['instagram', 'threads', 'warpcast', 'nostr', 'x']) {
      const channel = await ctx.db.channels.create({
        organizationId: org.organizationId,
        provider,
        name: `Our ${provider}`,
        accountId: `${provider}-1`,
        tokenSealed: ctx.secrets.seal('token'),
      });
      channels[provider] = channel._id.toString();
    }
    const image = await ctx.db.media.create({
      organizationId: org.organizationId,
      name: 'photo.jpg',
      status: 'ready',
      storageKey: 'photo.jpg',
      path: 'http://127.0.0.1:5999/uploads/photo.jpg',
      mimeType: 'image/jpeg',
      size: 20_000,
      width: 1080,
      height: 1080,
    });
    imageId = image._id.toString();
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const post = (provider: string, parts: { content: string; image?: { id: string; path: string }[] }[]) =>
    api(stack.baseUrl, apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'schedule',
        date: new Date(Date.now() + 3_600_000).toISOString(),
        posts: [{ integration: { id: channels[provider] }, value: parts }],
      },
    });
  const photo = () => [{ id: imageId, path: 'http://127.0.0.1:5999/uploads/photo.jpg' }];

  it('answers 422 media_not_public naming the channel and the part, and stores nothing', async () => {
    for (const provider of ['instagram', 'threads', 'warpcast', 'nostr']) {
      const response = await post(provider, [{ content: 'First' }, { content: 'With a photo', image: photo() }]);
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({
        error: 'media_not_public',
        details: [{ path: 'posts.0.value.1.image' }],
      });
      expect((response.body as { message: string }).message).toContain('UPLOADS_PUBLIC_URL');
    }
    expect(await ctx.db.posts.countDocuments({})).toBe(0);
  });

  it('accepts the same channels without media, and media for a platform that receives the bytes', async () => {
    expect((await post('threads', [{ content: 'Only words' }])).status).toBe(201);
    expect((await post('x', [{ content: 'A photo', image: photo() }])).status).toBe(201);
  });

  it('accepts media for a platform served on the same private network (a self-hosted or simulated API)', async () => {
    const local = await createTestContext({
      UPLOADS_PUBLIC_URL: 'http://127.0.0.1:5999/uploads',
      INSTAGRAM_API_URL: 'http://127.0.0.1:5998',
    });
    const localStack = await startStack(local, { workers: false });
    try {
      const org = await createOrganization(local.db, local.secrets, { name: 'Local Instagram' });
      const channel = await local.db.channels.create({
        organizationId: org.organizationId, provider: 'instagram', name: 'IG', accountId: 'ig-1',
        tokenSealed: local.secrets.seal('token'),
      });
      const image = await local.db.media.create({
        organizationId: org.organizationId, name: 'p.jpg', status: 'ready', storageKey: 'p.jpg',
        path: 'http://127.0.0.1:5999/uploads/p.jpg', mimeType: 'image/jpeg', size: 20_000, width: 1080, height: 1080,
      });
      const response = await api(localStack.baseUrl, org.apiKey, '/api/public/v1/posts', {
        method: 'POST',
        body: {
          type: 'now',
          posts: [{
            integration: { id: channel._id.toString() },
            value: [{ content: 'Local', image: [{ id: image._id.toString(), path: 'p.jpg' }] }],
          }],
        },
      });
      expect(response.status).toBe(201);
    } finally {
      await localStack.close();
      await local.cleanup();
    }
  });
});
