import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishJobId } from '../../../shared/queue/queues.ts';
import { MastodonSimulator } from '../../../test/simulators/mastodon/mastodon-simulator.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { startStack, waitFor, type RunningStack } from '../../../test/support/stack.ts';
import { makeTestMedia } from '../../../test/support/test-media.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

const files = makeTestMedia();
const png = readFileSync(files.png);

/**
 * CONTRACT, "Create post body": an `image[]` item with an unknown id and a URL as its path is
 * imported through the media pipeline before publishing. The media and publish workers run here
 * against an image server on loopback and a Mastodon simulator.
 */
describe('POST /posts imports images given by URL', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let source: Server;
  let origin = '';
  const simulator = new MastodonSimulator();
  let org: { apiKey: string; organizationId: string; channelId: string };
  /** Requests to /held/* wait here until the test answers them. */
  const held = new Map<string, ServerResponse>();

  beforeAll(async () => {
    source = createServer((request, response) => {
      if (request.url?.startsWith('/held/') === true) {
        held.set(request.url, response);
        return;
      }
      if (request.url === '/photo.png' || request.url === '/again.png') {
        response.writeHead(200, { 'Content-Type': 'image/png' }).end(png);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
    await simulator.start();
    // Long enough for a loopback fetch on a busy machine; a held URL outlasts it by design.
    ctx = await createTestContext({ MEDIA_WAIT_MS: '8000' });
    stack = await startStack(ctx);
    org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('importer'));
  });
  afterAll(async () => {
    for (const response of held.values()) response.destroy();
    source.closeAllConnections();
    source.close();
    await stack.close();
    await ctx.cleanup();
    await simulator.stop();
  });

  const createPost = (image: { id: string; path: string }, type = 'now') =>
    api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type,
        posts: [{ integration: { id: org.channelId }, value: [{ content: `with ${image.path}`, image: [image] }] }],
      },
    });
  const postOf = async (postId: string) => ctx.db.posts.findById(postId).lean();
  const publishedStatus = (postId: string) => waitFor(async () => {
    const post = await postOf(postId);
    if (post?.state === 'ERROR') throw new Error(`the post failed: ${post.error ?? ''}`);
    return post?.state === 'PUBLISHED'
      ? simulator.statuses.find((status) => status.url === post.releaseURL)
      : undefined;
  }, { what: `post ${postId} published`, timeoutMs: 30_000 });

  it('imports an unknown id given by URL, refers to the new media and publishes it with the image', async () => {
    const response = await createPost({ id: 'picture-from-our-cms', path: `${origin}/photo.png` });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const [created] = response.body as { postId: string }[];
    const postId = created?.postId ?? '';
    const [reference] = (await postOf(postId))?.media ?? [];
    const media = await ctx.db.media.findById(reference?.id ?? '').lean();
    expect(media).toMatchObject({
      sourceUrl: `${origin}/photo.png`,
      status: 'ready',
      mimeType: 'image/png',
      organizationId: new Types.ObjectId(org.organizationId),
    });
    // The post names the library's copy, not the caller's URL or id.
    expect(reference).toMatchObject({ id: media?._id.toString(), path: media?.path });
    const status = await publishedStatus(postId);
    expect(status.mediaIds).toHaveLength(1);
    expect(simulator.media.find((item) => item.id === status.mediaIds[0])?.bytes.equals(png)).toBe(true);
  });

  it('answers 422 fetch_failed naming the image when the import fails within the wait, and stores no post',
    async () => {
      const before = await ctx.db.posts.countDocuments();
      const response = await createPost({ id: 'gone', path: `${origin}/missing.png` });
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({
        statusCode: 422, error: 'fetch_failed', details: [{ path: 'posts.0.value.0.image.0' }],
      });
      expect((response.body as { message: string }).message).toContain(`${origin}/missing.png could not be imported`);
      expect(await ctx.db.posts.countDocuments()).toBe(before);
    });

  it('keeps a post whose import outlasts the wait queued, and publishes it only once the image is ready', async () => {
    const path = `${origin}/held/slow.png`;
    const response = await createPost({ id: 'slow-one', path });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    const mediaId = (await postOf(postId))?.media[0]?.id ?? '';
    expect((await ctx.db.media.findById(mediaId).lean())?.status).toBe('pending');
    // The publish job has run and put itself back to wait for the image, publishing nothing.
    await waitFor(async () => {
      const job = await stack.publishQueue.getJob(publishJobId(postId));
      return job?.processedOn !== undefined && (await job.getState()) === 'delayed' ? true : undefined;
    }, { what: 'the publish job waiting for the image' });
    expect((await postOf(postId))?.state).toBe('QUEUE');
    expect(simulator.statuses.some((status) => status.text === `with ${path}`)).toBe(false);

    held.get('/held/slow.png')?.writeHead(200, { 'Content-Type': 'image/png' }).end(png);
    const status = await publishedStatus(postId);
    expect(status.mediaIds).toHaveLength(1);
    expect((await ctx.db.media.findById(mediaId).lean())?.status).toBe('ready');
  });

  it('fails the post with the reason, and tells the organization, when an import it waits for fails', async () => {
    const path = `${origin}/held/broken.png`;
    const response = await createPost({ id: 'broken-one', path });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    held.get('/held/broken.png')
      ?.writeHead(200, { 'Content-Type': 'text/html' })
      .end('<!doctype html><p>not an image</p>');
    const failed = await waitFor(async () => {
      const post = await postOf(postId);
      return post?.state === 'ERROR' ? post : undefined;
    }, { what: 'the post failed', timeoutMs: 30_000 });
    expect(failed.error).toContain(`the image at ${path} could not be imported`);
    const notification = await ctx.db.notifications
      .findOne({
        organizationId: new Types.ObjectId(org.organizationId),
        content: { $regex: 'could not be published' },
      })
      .sort({ _id: -1 })
      .lean();
    expect(notification?.content).toContain(`the image at ${path} could not be imported`);
    expect(simulator.statuses.some((status) => status.text === `with ${path}`)).toBe(false);
  });

  it('stores a media id written in upper case as the library writes it, so the publish finds it', async () => {
    const imported = await createPost({ id: 'again', path: `${origin}/again.png` }, 'draft');
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const mediaId = (await postOf((imported.body as { postId: string }[])[0]?.postId ?? ''))?.media[0]?.id ?? '';
    const media = await waitFor(async () => {
      const found = await ctx.db.media.findById(mediaId).lean();
      return found?.status === 'ready' ? found : undefined;
    }, { what: 'the imported image ready' });
    const response = await createPost({ id: mediaId.toUpperCase(), path: media.path ?? '' });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    expect((await postOf(postId))?.media[0]?.id).toBe(mediaId);
    expect((await publishedStatus(postId)).mediaIds).toHaveLength(1);
  });

  it('answers 400 unknown_media for an unknown id whose path is not a URL to import', async () => {
    for (const path of [
      'not a url', 'ftp://files.example.com/a.png', 'data:image/png;base64,AAAA', `${origin}/%E0%A4%A.png`,
    ]) {
      const response = await createPost({ id: new Types.ObjectId().toString(), path });
      expect(response.status, path).toBe(400);
      expect(response.body).toMatchObject({ error: 'unknown_media', details: [{ path: 'posts.0.value.0.image.0' }] });
    }
  });
});
