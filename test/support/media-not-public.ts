import { expect } from 'vitest';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { api } from './fixtures.ts';
import { startStack } from './stack.ts';
import { createTestContext } from './test-context.ts';

/**
 * For a platform that fetches images by address (`mediaByUrl`): with uploads served at a loopback
 * address and the platform at its public host, POST /posts refuses an image at once (422
 * media_not_public) instead of failing at publish time. Its own short-lived api, no workers.
 */
export async function expectImageRefusedAsPrivate(
  provider: string,
  displayName: string,
  settings: Record<string, unknown>,
): Promise<void> {
  const ctx = await createTestContext({ UPLOADS_PUBLIC_URL: 'http://127.0.0.1:5999/uploads' });
  const stack = await startStack(ctx, { workers: false });
  try {
    const org = await createOrganization(ctx.db, ctx.secrets, { name: `Private media for ${provider}` });
    const channel = await ctx.db.channels.create({
      organizationId: org.organizationId, provider, name: displayName, accountId: `${provider}-1`,
      tokenSealed: ctx.secrets.seal('token'),
    });
    const stored = await ctx.db.media.create({
      organizationId: org.organizationId, name: 'cover.png', status: 'ready', storageKey: 'cover.png',
      path: 'http://127.0.0.1:5999/uploads/cover.png', mimeType: 'image/png', size: 2_000, width: 64, height: 48,
    });
    const response = await api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'now',
        posts: [{
          integration: { id: channel._id.toString() }, settings,
          value: [{ content: 'With a cover', image: [{ id: stored._id.toString(), path: stored.path }] }],
        }],
      },
    });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error: 'media_not_public', details: [{ path: 'posts.0.value.0.image' }] });
    expect((response.body as { message: string }).message).toContain(`${displayName} fetches media from their URL`);
    expect(await ctx.db.posts.countDocuments({})).toBe(0);
  } finally {
    await stack.close();
    await ctx.cleanup();
  }
}
