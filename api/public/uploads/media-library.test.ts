import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { expectError } from '../../../test/support/channel-test-kit.ts';
import { uploadFile, type UploadedMedia } from '../../../test/support/publish-now.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';
import { makeSmallMedia } from '../../../test/support/small-media.ts';

interface Listed { id: string; status: string; width?: number; usedBy: { scheduled: string[]; drafts: string[] } }
interface Page { media: Listed[]; cursor: string | null }

describe('the media library: GET /media and DELETE /media/:id', () => {
  // The media worker inspects uploads; publishing is not under test.
  const world = useSimulatedStack({ overrides: { WORKER_QUEUES: 'media' } });
  const small = makeSmallMedia();
  let org: { apiKey: string; channelId: string; organizationId: string };
  afterAll(() => { small.remove(); });
  beforeAll(async () => {
    org = await organizationWithMastodon(world.ctx, world.simulator.origin, world.simulator.addAccount('library'));
  });

  const call = (route: string, init: { method?: string; body?: unknown } = {}, apiKey = org.apiKey) =>
    api(world.stack.baseUrl, apiKey, `/api/public/v1${route}`, init);
  const post = async (type: 'schedule' | 'draft', image: UploadedMedia & { thumbnail?: string }): Promise<string> => {
    const answer = await call('/posts', {
      method: 'POST',
      body: {
        type, date: new Date(Date.now() + 86_400_000).toISOString(),
        posts: [{
          integration: { id: org.channelId },
          value: [{ content: 'with a picture' }, { content: 'reply', image: [image] }],
        }],
      },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return (answer.body as { postId: string }[])[0]?.postId ?? '';
  };
  const storedFile = async (id: string) => {
    const record = await world.ctx.db.media.findById(id).lean();
    return path.join(world.ctx.config.UPLOADS_DIR, record?.storageKey ?? 'none');
  };

  it('lists the library newest first, a page at a time, with the posts that use each media', async () => {
    const [first, second, third] = [
      await uploadFile(world.stack.baseUrl, org.apiKey, small.png),
      await uploadFile(world.stack.baseUrl, org.apiKey, small.png),
      await uploadFile(world.stack.baseUrl, org.apiKey, small.mp4),
    ];
    const postId = await post('schedule', first);
    const page = (await call('/media?limit=2')).body as Page;
    expect(page.media.map((media) => media.id)).toEqual([third.id, second.id]);
    expect(page.media[0]).toMatchObject({ status: 'ready', width: 320 });
    const next = (await call(`/media?limit=2&cursor=${page.cursor ?? ''}`)).body as Page;
    expect(next).toEqual({ media: [expect.objectContaining({ id: first.id })], cursor: null });
    // The thread's reply attaches it: the post (its root) is named.
    expect(next.media[0]?.usedBy).toEqual({ scheduled: [postId], drafts: [], published: [] });
    const otherOrganization = await organizationWithMastodon(world.ctx, world.simulator.origin, 'token');
    expect((await call('/media', {}, otherOrganization.apiKey)).body).toEqual({ media: [], cursor: null });
  });

  it('refuses to delete a media a scheduled post attaches, naming the post; deletes it once the post is gone',
    async () => {
    const image = await uploadFile(world.stack.baseUrl, org.apiKey, small.png);
    const postId = await post('schedule', image);
    const refused = await call(`/media/${image.id}`, { method: 'DELETE' });
    expectError(refused, 409, 'media_in_use');
    expect((refused.body as { message: string }).message).toContain(postId);
    expect(existsSync(await storedFile(image.id))).toBe(true);

    expect((await call(`/posts/${postId}`, { method: 'DELETE' })).status).toBe(200);
    const file = await storedFile(image.id);
    expect((await call(`/media/${image.id}`, { method: 'DELETE' })).body).toEqual({ id: image.id, deleted: true });
    expect(existsSync(file)).toBe(false);
    expectError(await call(`/media/${image.id}`), 404, 'not_found');
  });

  it('counts an image chosen as a scheduled video\'s poster as used: listed, and refused deletion', async () => {
    const poster = await uploadFile(world.stack.baseUrl, org.apiKey, small.png);
    const video = await uploadFile(world.stack.baseUrl, org.apiKey, small.mp4);
    const postId = await post('schedule', { ...video, thumbnail: poster.path });

    const page = (await call('/media?limit=2')).body as Page;
    expect(page.media.find((media) => media.id === poster.id)?.usedBy.scheduled).toEqual([postId]);
    const refused = await call(`/media/${poster.id}`, { method: 'DELETE' });
    expectError(refused, 409, 'media_in_use');
    expect((refused.body as { message: string }).message).toContain(postId);
    expect(existsSync(await storedFile(poster.id))).toBe(true);
  });

  it('lets a draft\'s media go; answers 404 for another organization\'s media, 400 for a bad cursor', async () => {
    const image = await uploadFile(world.stack.baseUrl, org.apiKey, small.png);
    await post('draft', image);
    const otherOrganization = await organizationWithMastodon(world.ctx, world.simulator.origin, 'token');
    expectError(await call(`/media/${image.id}`, { method: 'DELETE' }, otherOrganization.apiKey), 404, 'not_found');
    expect((await call(`/media/${image.id}`, { method: 'DELETE' })).status).toBe(200);
    expectError(await call('/media?cursor=not-an-id'), 400, 'validation_failed');
    expectError(await call('/media?limit=101'), 400, 'validation_failed');
  });
});
