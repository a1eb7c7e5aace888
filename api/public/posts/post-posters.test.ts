import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

interface Stored { id: string; path: string }

/**
 * A video's poster (`image[].thumbnail`, shared/domain/posts/post-posters.ts): an image of the
 * organization's library, named by path or id and stored as its path; anything else is refused
 * before anything is stored.
 */
describe('POST /posts: a video\'s poster (image[].thumbnail)', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;
  let channelId: string;
  let organizationId: Types.ObjectId;
  let video: Stored;
  let frame: string;
  let cover: Stored;
  let webp: Stored;
  let big: Stored;
  let picture: Stored;
  let othersCover: Stored;

  async function media(owner: Types.ObjectId, name: string, fields: Record<string, unknown>): Promise<Stored> {
    const path = `http://127.0.0.1:9/uploads/${name}`;
    const made = await ctx.db.media.create({
      organizationId: owner, name, originalName: name, path, storageKey: `2030/01/01/${'a'.repeat(32)}.bin`,
      status: 'ready', size: 4_000, ...fields,
    });
    return { id: made._id.toHexString(), path };
  }

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    ({ apiKey, channelId } = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'token'));
    const other = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'token');
    organizationId = (await ctx.db.channels.findById(channelId).lean())?.organizationId ?? new Types.ObjectId();
    const otherId = (await ctx.db.channels.findById(other.channelId).lean())?.organizationId ?? new Types.ObjectId();
    frame = 'http://127.0.0.1:9/uploads/clip-poster.jpg';
    video = await media(organizationId, 'clip.mp4', {
      mimeType: 'video/mp4', width: 320, height: 240, durationSeconds: 3, videoCodec: 'h264', thumbnail: frame,
    });
    cover = await media(organizationId, 'cover.png', { mimeType: 'image/png', width: 64, height: 48 });
    webp = await media(organizationId, 'cover.webp', { mimeType: 'image/webp', width: 64, height: 48 });
    big = await media(organizationId, 'big.jpg', { mimeType: 'image/jpeg', size: 3 * 1024 * 1024 });
    picture = await media(organizationId, 'photo.jpg', { mimeType: 'image/jpeg', width: 64, height: 48 });
    othersCover = await media(otherId, 'theirs.png', { mimeType: 'image/png', width: 64, height: 48 });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const post = (type: string, image: Record<string, unknown>[]) => api(stack.baseUrl, apiKey, '/api/public/v1/posts', {
    method: 'POST',
    body: {
      type, ...(type === 'schedule' ? { date: new Date(Date.now() + 3_600_000).toISOString() } : {}),
      posts: [{ integration: { id: channelId }, value: [{ content: 'A clip', image }] }],
    },
  });
  const storedMedia = async (response: { body: unknown }) => {
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    return (await ctx.db.posts.findById(postId).lean())?.media;
  };

  it('stores the poster named by its path, or by its id, as the image\'s path', async () => {
    const byPath = await post('schedule', [{ ...video, thumbnail: cover.path }]);
    expect(byPath.status).toBe(201);
    expect(await storedMedia(byPath)).toEqual([{ ...video, alt: null, thumbnail: cover.path }]);

    const byId = await post('draft', [{ ...video, thumbnail: cover.id.toUpperCase() }]);
    expect(byId.status).toBe(201);
    expect(await storedMedia(byId)).toEqual([{ ...video, alt: null, thumbnail: cover.path }]);
  });

  it('takes back the video\'s own poster frame, and an empty thumbnail, as no choice', async () => {
    const echoed = await post('draft', [{ ...video, thumbnail: frame }]);
    expect(echoed.status).toBe(201);
    expect(await storedMedia(echoed)).toEqual([{ ...video, alt: null, thumbnail: frame }]);
    const empty = await post('draft', [{ ...video, thumbnail: '' }]);
    expect(empty.status).toBe(201);
    expect(await storedMedia(empty)).toEqual([{ ...video, alt: null, thumbnail: null }]);
  });

  it.each([
    ['an image of another organization', () => ({ ...video, thumbnail: othersCover.path }),
      'is not an image of your media library'],
    ['an unknown id', () => ({ ...video, thumbnail: new Types.ObjectId().toHexString() }),
      'is not an image of your media library'],
    ['an address outside the library', () => ({ ...video, thumbnail: 'https://cdn.example.com/cover.jpg' }),
      'is not an image of your media library'],
    ['a video', () => ({ ...video, thumbnail: video.path }), 'a poster is an image'],
    ['a WebP image', () => ({ ...video, thumbnail: webp.path }), 'a poster must be a JPEG or PNG image'],
    ['an image over 2 MB', () => ({ ...video, thumbnail: big.id }), 'a poster can be at most 2 MB'],
    ['a poster on an image', () => ({ ...picture, thumbnail: cover.path }),
      'a thumbnail is the poster of a video'],
  ])('refuses %s with 400 validation_failed naming the thumbnail, storing nothing', async (_case, image, words) => {
    const before = await ctx.db.posts.countDocuments({ organizationId });
    for (const type of ['draft', 'schedule']) {
      const response = await post(type, [image()]);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: 'validation_failed', details: [{ path: 'posts.0.value.0.image.0.thumbnail' }],
      });
      expect((response.body as { details: { message: string }[] }).details[0]?.message).toContain(words);
    }
    expect(await ctx.db.posts.countDocuments({ organizationId })).toBe(before);
  });

  it('says the same in a dry run (POST /posts/validate)', async () => {
    const response = await api(stack.baseUrl, apiKey, '/api/public/v1/posts/validate', {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: channelId }, value: [{ content: 'A clip', image: [
        { ...video, thumbnail: othersCover.path },
      ] }] }] },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      valid: false,
      problems: [{ path: 'posts.0.value.0.image.0.thumbnail', code: 'validation_failed' }],
    });
  });
});
