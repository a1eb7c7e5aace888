import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../domain/organizations/organizations.ts';
import { api } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { encodeGmbCredential } from './credential.ts';

/**
 * Google fetches a local post's photo from its URL (design-blogging-business.md 7.3). With
 * uploads served at a loopback address and Google at its public hosts, a post with a photo would
 * fail at publish time, so POST /posts refuses it at once; a post of text alone is fine.
 */
describe('POST /posts with a photo for Google Business Profile when media are served at a private address', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey = '';
  let channelId = '';
  let photo = { id: '', path: '' };

  beforeAll(async () => {
    ctx = await createTestContext({ UPLOADS_PUBLIC_URL: 'http://127.0.0.1:5999/uploads' });
    stack = await startStack(ctx, { workers: false });
    const org = await createOrganization(ctx.db, ctx.secrets, { name: 'GMB media reach' });
    apiKey = org.apiKey;
    const credential = { accessToken: 'token', account: 'accounts/100', location: 'locations/a1' };
    const channel = await ctx.db.channels.create({
      organizationId: org.organizationId, provider: 'gmb', name: 'Ada Bakery', accountId: 'locations/a1',
      tokenSealed: ctx.secrets.seal(encodeGmbCredential(credential)),
    });
    channelId = channel._id.toString();
    const stored = await ctx.db.media.create({
      organizationId: org.organizationId, name: 'bread.jpg', status: 'ready', storageKey: 'bread.jpg',
      path: 'http://127.0.0.1:5999/uploads/bread.jpg', mimeType: 'image/jpeg', size: 20_000, width: 800, height: 800,
    });
    photo = { id: stored._id.toString(), path: stored.path ?? '' };
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const post = (image: { id: string; path: string }[]) => api(stack.baseUrl, apiKey, '/api/public/v1/posts', {
    method: 'POST',
    body: {
      type: 'schedule',
      date: new Date(Date.now() + 3_600_000).toISOString(),
      posts: [{
        integration: { id: channelId }, settings: { topicType: 'STANDARD' }, value: [{ content: 'Fresh', image }],
      }],
    },
  });

  it('answers 422 media_not_public for a post with a photo, naming the channel, and stores nothing', async () => {
    const response = await post([photo]);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      error: 'media_not_public',
      details: [{
        path: 'posts.0.value.0.image',
        message: 'Google Business Profile channel "Ada Bakery": Google Business Profile fetches media from their URL, '
          + 'and this server serves them at a private address',
      }],
    });
    expect(await ctx.db.posts.countDocuments({})).toBe(0);
  });

  it('accepts a post of text alone', async () => {
    const response = await post([]);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  });
});
