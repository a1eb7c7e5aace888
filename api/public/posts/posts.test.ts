import { Types } from 'mongoose';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishJobId } from '../../../shared/queue/queues.ts';
import { createRedis } from '../../../shared/queue/redis.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

describe('POST /posts (workers stopped, so jobs stay queued)', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;
  let channelId: string;
  let otherChannelId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    ({ apiKey, channelId } = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'token'));
    ({ channelId: otherChannelId } = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'token'));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const post = (body: unknown) => api(stack.baseUrl, apiKey, '/api/public/v1/posts', { method: 'POST', body });
  /** The api's answer to a POST /posts whose headers declare `bytes` of JSON, before any of the body is sent. */
  function answerToDeclaredLength(bytes: number): Promise<{ status: number; body: unknown }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(`${stack.baseUrl}/api/public/v1/posts`, {
        method: 'POST',
        headers: { Authorization: apiKey, 'Content-Type': 'application/json', 'Content-Length': String(bytes) },
      }, (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; });
        response.on('end', () => {
          request.destroy();
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown });
        });
      });
      request.on('error', reject);
      request.flushHeaders();
    });
  }

  it('stores a scheduled thread and queues one delayed job whose id derives from the post', async () => {
    const date = new Date(Date.now() + 3_600_000);
    const response = await post({
      type: 'schedule',
      date: date.toISOString(),
      tags: [{ value: 'launch', label: 'Launch' }],
      posts: [{ integration: { id: channelId }, settings: { visibility: 'unlisted' }, value: [{ content: 'Part 1', image: [] }, { content: 'Part 2', delay: 5 }] }],
    });
    expect(response.status).toBe(201);
    const [created] = response.body as { postId: string; integration: string }[];
    expect(created?.integration).toBe(channelId);
    const postId = created?.postId ?? '';

    const parts = await ctx.db.posts.find({ $or: [{ _id: postId }, { rootPostId: postId }] }).sort({ position: 1 }).lean();
    expect(parts.map((part) => [part.position, part.content, part.state, part.delayMinutes])).toEqual([[0, 'Part 1', 'QUEUE', 0], [1, 'Part 2', 'QUEUE', 5]]);
    expect(parts[0]?.publishDate.toISOString()).toBe(date.toISOString());
    expect(parts[0]?.settings).toEqual({ visibility: 'unlisted', __type: 'mastodon' });

    const job = await stack.publishQueue.getJob(publishJobId(postId));
    expect(job?.data).toEqual({
      organizationId: parts[0]?.organizationId.toString(), postId, channelId: parts[0]?.channelId.toString(),
    });
    expect(await job?.getState()).toBe('delayed');
    expect(job?.opts.delay).toBeGreaterThan(3_500_000);
  });

  it('never queues a post twice: scheduling the same post again keeps the one job', async () => {
    const response = await post({ type: 'schedule', date: new Date(Date.now() + 60_000).toISOString(), posts: [{ integration: { id: channelId }, value: [{ content: 'Once' }] }] });
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    const { BullPublishScheduler } = await import('../../../shared/queue/publish-queue.ts');
    const connection = createRedis(ctx.config.REDIS_URL, 'worker');
    const scheduler = new BullPublishScheduler(stack.publishQueue, connection);
    const organizationId = (await ctx.db.posts.findById(postId).lean())?.organizationId.toString() ?? '';
    try {
      await scheduler.schedule({ organizationId, postId, publishAt: new Date() });
      await scheduler.schedule({ organizationId, postId, publishAt: new Date() });
    } finally {
      await connection.quit();
    }
    const jobs = await stack.publishQueue.getJobs(['delayed', 'waiting', 'prioritized', 'active', 'completed']);
    expect(jobs.filter((job) => job.id === publishJobId(postId))).toHaveLength(1);
  });

  it('dues every post scheduled for one moment at that moment, however late each add ran', async () => {
    const { BullPublishScheduler } = await import('../../../shared/queue/publish-queue.ts');
    const connection = createRedis(ctx.config.REDIS_URL, 'worker');
    // The scheduler's clock 5 s behind Redis's adds: as a busy process that took the clock, then waited.
    const clock = Date.now() - 5_000;
    const scheduler = new BullPublishScheduler(stack.publishQueue, connection, () => new Date(clock));
    const publishAt = new Date(clock + 3_600_000);
    const postIds = ['a', 'b', 'c'].map((letter) => `${letter}${'0'.repeat(23)}`);
    try {
      for (const postId of postIds) await scheduler.schedule({ organizationId: channelId, postId, publishAt });
      // BullMQ's delayed score: the due time times 0x1000, plus the order of adding.
      const scores = await Promise.all(postIds.map((postId) =>
        connection.zscore(stack.publishQueue.toKey('delayed'), publishJobId(postId))));
      expect(scores.map((score) => Math.floor(Number(score) / 0x1000))).toEqual(postIds.map(() => publishAt.getTime()));
      expect(scores.map(Number)).toEqual([...scores.map(Number)].sort((a, b) => a - b));
    } finally {
      await Promise.all(postIds.map((postId) => stack.publishQueue.remove(publishJobId(postId))));
      await connection.quit();
    }
  });

  it('stores a draft without queueing it', async () => {
    const response = await post({ type: 'draft', posts: [{ integration: { id: channelId }, value: [{ content: 'Later maybe' }] }] });
    expect(response.status).toBe(201);
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    expect((await ctx.db.posts.findById(postId).lean())?.state).toBe('DRAFT');
    expect(await stack.publishQueue.getJob(publishJobId(postId))).toBeUndefined();
  });

  it('queues a `now` post with no delay', async () => {
    const response = await post({ type: 'now', posts: [{ integration: { id: channelId }, value: [{ content: 'Right away' }] }] });
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    const job = await stack.publishQueue.getJob(publishJobId(postId));
    expect(job?.opts.delay).toBe(0);
    // Waiting for a worker, in BullMQ's list of jobs with a priority: the organization's turn this minute.
    expect(await job?.getState()).toBe('prioritized');
    expect(job?.opts.priority).toBeGreaterThanOrEqual(1);
  });

  it('answers 404 naming the entry for a channel of another organization or an unknown one, and stores nothing', async () => {
    const before = await ctx.db.posts.countDocuments();
    for (const id of [otherChannelId, new Types.ObjectId().toString(), 'not-an-id']) {
      const response = await post({ type: 'now', posts: [{ integration: { id: channelId }, value: [{ content: 'a' }] }, { integration: { id }, value: [{ content: 'b' }] }] });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ error: 'not_found', details: [{ path: 'posts.1.integration.id' }] });
    }
    expect(await ctx.db.posts.countDocuments()).toBe(before);
  });

  it.each([
    ['no posts', { type: 'now', posts: [] }, 'posts'],
    ['unknown type', { type: 'later', posts: [{ integration: { id: 'x' }, value: [{ content: 'a' }] }] }, 'type'],
    ['schedule without date', { type: 'schedule', posts: [{ integration: { id: 'x' }, value: [{ content: 'a' }] }] }, 'date'],
    ['bad date', { type: 'schedule', date: 'tomorrow', posts: [{ integration: { id: 'x' }, value: [{ content: 'a' }] }] }, 'date'],
    ['array body', [], ''],
    ['value is an object', { type: 'now', posts: [{ integration: { id: 'x' }, value: { content: 'a' } }] }, 'posts.0.value'],
    ['negative delay', { type: 'now', posts: [{ integration: { id: 'x' }, value: [{ content: 'a' }, { content: 'b', delay: -1 }] }] }, 'posts.0.value.1.delay'],
    ['huge delay', { type: 'now', posts: [{ integration: { id: 'x' }, value: [{ content: 'a' }, { content: 'b', delay: 1e300 }] }] }, 'posts.0.value.1.delay'],
  ])('answers 400 validation_failed for %s', async (_name, body, path) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, error: 'validation_failed' });
    expect((response.body as { details: { path: string }[] }).details.map((detail) => detail.path)).toContain(path);
  });

  it('answers 400 when a part has neither content nor media, drafts included', async () => {
    for (const type of ['now', 'draft']) {
      const response = await post({ type, posts: [{ integration: { id: channelId }, value: [{ content: '   ' }] }] });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ details: [{ path: 'posts.0.value.0.content' }] });
    }
  });

  it('answers 400 unknown_media naming the image for an unknown id whose path is not a URL, or media that failed',
    async () => {
      const failed = await ctx.db.media.create({
        organizationId: (await ctx.db.channels.findById(channelId).lean())?.organizationId,
        name: 'x.png',
        status: 'failed',
        error: 'Failed to read the image',
      });
      const cases = [
        {
          image: { id: new Types.ObjectId().toString(), path: 'a.png' },
          message: 'is not in your media library and its path is not a URL to import',
        },
        {
          image: { id: failed._id.toString(), path: 'https://cdn.example.com/x.png' },
          message: 'could not be processed (Failed to read the image); upload it again',
        },
      ];
      for (const { image, message } of cases) {
        const response = await post({
          type: 'now',
          posts: [{ integration: { id: channelId }, value: [{ content: 'text' }, { content: 'pic', image: [image] }] }],
        });
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({
          statusCode: 400, error: 'unknown_media', details: [{ path: 'posts.0.value.1.image.0' }],
        });
        expect((response.body as { details: { message: string }[] }).details[0]?.message).toContain(message);
      }
    });

  describe('free-form settings and part sizes that MongoDB could not store (issue 18, item 6)', () => {
    const draftWith = (settings: string, content = '"x"') => api(stack.baseUrl, apiKey, '/api/public/v1/posts', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      rawBody: `{"type":"draft","posts":[{"integration":{"id":"${channelId}"},"settings":${settings},`
        + `"value":[{"content":${content}}]}]}`,
    });

    it.each([
      [
        'nested objects 1 000 deep',
        `{"a":${'{"a":'.repeat(1_000)}1${'}'.repeat(1_000)}}`,
        /^posts\.0\.settings\.a(\.a)+$/,
        'nested more than 16 levels deep',
      ],
      [
        'nested arrays 2 000 deep',
        `{"a":${'['.repeat(2_000)}${']'.repeat(2_000)}}`,
        /^posts\.0\.settings\.a\.0$/,
        'an array cannot hold another array directly; wrap the inner one in an object',
      ],
      // Deeper than any body may be (api/middleware/json-body.ts): refused before it is parsed.
      [
        'nested arrays 200 000 deep',
        `{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}`,
        /^body$/,
        'nested more than 2048 levels deep',
      ],
      [
        'an array inside an array, which FerretDB cannot store',
        '{"list":[[0,0],"0000-01-01"]}',
        /^posts\.0\.settings\.list\.0$/,
        'an array cannot hold another array directly; wrap the inner one in an object',
      ],
      [
        'arrays and objects alternating 1 000 deep',
        `{"a":${'[{"a":'.repeat(500)}1${'}]'.repeat(500)}}`,
        /^posts\.0\.settings\.a(\.0\.a)+/,
        'nested more than 16 levels deep',
      ],
      [
        'a key starting with $',
        '{"$set":{"state":"PUBLISHED"}}',
        /^posts\.0\.settings\.\$set$/,
        'a key cannot start with "$"',
      ],
      ['a dotted key', '{"a.b":1}', /^posts\.0\.settings\.a\.b$/, 'a key cannot contain "."'],
      ['an overflowing number', '{"limit":1e999}', /^posts\.0\.settings\.limit$/, 'a number must be finite'],
      ['300 KB of settings', `{"text":"${'s'.repeat(300 * 1024)}"}`, /^posts\.0\.settings$/, 'larger than 256 KB'],
    ])('refuses draft settings with %s: 400 naming the place, nothing stored',
      async (_name, settings, path, message) => {
        const before = await ctx.db.posts.countDocuments();
        const response = await draftWith(settings);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ statusCode: 400, error: 'validation_failed' });
        const [detail] = (response.body as { details: { path: string; message: string }[] }).details;
        expect(detail?.path).toMatch(path);
        expect(detail?.message).toBe(message);
        expect(await ctx.db.posts.countDocuments()).toBe(before);
      });

    it('refuses a NUL character anywhere in the body, the path or the query, which the database cannot hold',
      async () => {
        const inContent = await draftWith('{}', '"a\\u0000b"');
        expect(inContent.status).toBe(400);
        expect(inContent.body).toMatchObject({
          error: 'validation_failed',
          details: [{ path: 'posts.0.value.0.content', message: 'contains a NUL character' }],
        });
        const inKey = await draftWith('{"a\\u0000":1}');
        expect(inKey.body).toMatchObject({
          error: 'validation_failed', details: [{ path: 'posts.0.settings.a\u0000' }],
        });
        const inPath = await api(stack.baseUrl, apiKey, '/api/public/v1/posts/group/a%00b', { method: 'DELETE' });
        expect(inPath.status).toBe(400);
        expect(inPath.body).toMatchObject({
          error: 'validation_failed', details: [{ path: 'group', message: 'contains a NUL character' }],
        });
        const inQuery = await api(stack.baseUrl, apiKey, '/api/public/v1/integrations?customer=%00');
        expect(inQuery.body).toMatchObject({ error: 'validation_failed', details: [{ path: 'customer' }] });
      });

    it('answers 413 PayloadTooLargeError for a draft part over what one stored document holds, and stores nothing',
      async () => {
        const before = await ctx.db.posts.countDocuments();
        const response = await draftWith('{}', `"${'x'.repeat(17 * 1024 * 1024)}"`);
        expect(response.status).toBe(413);
        expect(response.body).toMatchObject({
          statusCode: 413, error: 'payload_too_large', details: [{ path: 'posts.0.value.0' }],
        });
        expect((response.body as { message: string }).message)
          .toMatch(/^PayloadTooLargeError: posts\.0\.value\.0: this part holds 17\.0 MB .*at most 15 MB/);
        expect(await ctx.db.posts.countDocuments()).toBe(before);
        // Just under the cap is stored.
        expect((await draftWith('{}', `"${'x'.repeat(14 * 1024 * 1024)}"`)).status).toBe(201);
      });

    it('refuses a tag with an empty label instead of failing to store it', async () => {
      const response = await post({
        type: 'draft',
        tags: [{ value: 'launch', label: '' }],
        posts: [{ integration: { id: channelId }, value: [{ content: 'tagged' }] }],
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: 'validation_failed', details: [{ path: 'tags.0.label' }] });
    });
  });

  it('answers 400 invalid_json for malformed JSON and 415 for a non-JSON body', async () => {
    const malformed = await api(stack.baseUrl, apiKey, '/api/public/v1/posts', { method: 'POST', rawBody: '{"type": "now",', headers: { 'Content-Type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: 'invalid_json' });
    const form = await api(stack.baseUrl, apiKey, '/api/public/v1/posts', { method: 'POST', rawBody: 'type=now', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ error: 'unsupported_media_type' });
  });

  it('accepts a body just under 50 MB and answers 413 PayloadTooLargeError above it', async () => {
    const filler = 'x'.repeat(45 * 1024 * 1024);
    const under = await post({ type: 'draft', inlined: filler, posts: [{ integration: { id: channelId }, value: [{ content: 'big but fine' }] }] });
    expect(under.status).toBe(201);
    // Above the limit the api answers as soon as it reads the declared length. Sending the body on
    // regardless races that answer (the connection may close under a client still writing 51 MB, and a
    // busy machine then read a reset instead of the 413), so the body waits for the answer here.
    const over = await answerToDeclaredLength(51 * 1024 * 1024);
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ statusCode: 413, error: 'payload_too_large' });
    expect((over.body as { message: string }).message).toMatch(/^PayloadTooLargeError: .*upload media first/i);
  });
});
