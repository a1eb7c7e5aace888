import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyStore } from './idempotency-store.ts';
import { api, organizationWithMastodon } from '../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

/**
 * Idempotency-Key on POST /posts and POST /upload-from-url, against the api on real Redis and
 * MongoDB. Workers are off: upload-from-url then holds its request for MEDIA_WAIT_MS, which gives
 * the racing tests a first request that is reliably still running.
 */
describe('Idempotency-Key', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let org: { apiKey: string; channelId: string };
  let keys = 0;

  beforeAll(async () => {
    ctx = await createTestContext({ MEDIA_WAIT_MS: '1500' });
    stack = await startStack(ctx, { workers: false });
    org = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'token');
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const newKey = (): string => {
    keys += 1;
    return `key-${String(keys)}-${ctx.config.QUEUE_PREFIX}`;
  };
  const schedule = (content: string, channelId = org.channelId) => ({
    type: 'schedule',
    date: new Date(Date.now() + 3_600_000).toISOString(),
    posts: [{ integration: { id: channelId }, value: [{ content }] }],
  });
  const post = (body: unknown, key: string, apiKey = org.apiKey) =>
    api(stack.baseUrl, apiKey, '/api/public/v1/posts', { method: 'POST', body, headers: { 'Idempotency-Key': key } });
  const postsWith = (content: string) => ctx.db.posts.countDocuments({ content });

  it('answers a repeat with the first answer and creates nothing again, whatever the order of its keys', async () => {
    const key = newKey();
    const body = schedule('Once only');
    const first = await post(body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post(body, key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    expect((await post(reordered, key)).body).toEqual(first.body);
    expect(await postsWith('Once only')).toBe(1);
  });

  it('answers 422 idempotency_key_reused for the same key with another body, and creates nothing', async () => {
    const key = newKey();
    expect((await post(schedule('First body'), key)).status).toBe(201);
    const reused = await post(schedule('Second body'), key);
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ error: 'idempotency_key_reused' });
    expect(await postsWith('Second body')).toBe(0);
  });

  it('frees the key of a refused request, so the corrected request can use it', async () => {
    const key = newKey();
    const refused = await post({ type: 'schedule', posts: [] }, key);
    expect(refused.status).toBe(400);
    expect((await post(schedule('Corrected'), key)).status).toBe(201);
    expect(await postsWith('Corrected')).toBe(1);
  });

  it('keeps one organization\'s keys apart from another\'s', async () => {
    const other = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'token');
    const key = newKey();
    expect((await post(schedule('Shared key A'), key)).status).toBe(201);
    expect((await post(schedule('Shared key B', other.channelId), key, other.apiKey)).status).toBe(201);
    expect(await postsWith('Shared key B')).toBe(1);
  });

  it('creates one post when ten requests with one key race', async () => {
    const key = newKey();
    const body = schedule('Racing');
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(body, key)));
    const created = answers.filter((answer) => answer.status === 201);
    const running = answers.filter((answer) => answer.status === 409);
    expect(created.length + running.length).toBe(10);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const answer of created) expect(answer.body).toEqual(created[0]?.body);
    for (const answer of running) expect(answer.body).toMatchObject({ error: 'idempotency_request_running' });
    expect(await postsWith('Racing')).toBe(1);
  });

  it('answers 409 to a repeat while the first upload-from-url is still running, then its answer', async () => {
    const key = newKey();
    const body = { url: 'https://media.example.com/racing.png' };
    const upload = () => api(stack.baseUrl, org.apiKey, '/api/public/v1/upload-from-url', {
      method: 'POST', body, headers: { 'Idempotency-Key': key },
    });
    const first = upload();
    // The first holds its request for MEDIA_WAIT_MS (no media worker runs): the repeat meets it running.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const during = await upload();
    expect(during.status).toBe(409);
    expect(during.body).toMatchObject({ error: 'idempotency_request_running' });
    const answered = await first;
    expect(answered.status).toBe(202);
    const after = await upload();
    expect(after.status).toBe(202);
    expect(after.body).toEqual(answered.body);
    expect(await ctx.db.media.countDocuments({ sourceUrl: body.url })).toBe(1);
  });

  it('refuses a key with other than visible ASCII characters or longer than 255 with 400', async () => {
    for (const key of ['clé-non-ascii', 'x'.repeat(256), 'has space']) {
      const answer = await post(schedule('Bad key'), key);
      expect(answer.status, key).toBe(400);
      expect(answer.body).toMatchObject({ error: 'validation_failed' });
    }
    expect(await postsWith('Bad key')).toBe(0);
  });
});

describe('IdempotencyStore leases', () => {
  let ctx: TestContext;
  let redis: Redis;

  beforeAll(async () => {
    ctx = await createTestContext();
    redis = new Redis(ctx.config.REDIS_URL);
  });

  afterAll(async () => {
    await redis.quit();
    await ctx.cleanup();
  });

  it('frees a key whose request never finished once its lease ends; the new holder keeps it', async () => {
    const keyPrefix = `${ctx.config.QUEUE_PREFIX}:idem`;
    const store = new IdempotencyStore(redis, { keyPrefix, rememberMs: 60_000, leaseMs: 150 });
    const abandoned = await store.claim('org', 'k', 'f', Date.now());
    expect(abandoned.kind).toBe('first');
    expect((await store.claim('org', 'k', 'f', Date.now())).kind).toBe('running');
    await new Promise((resolve) => setTimeout(resolve, 250));
    const taken = await store.claim('org', 'k', 'f', Date.now());
    expect(taken.kind).toBe('first');
    // The first holder comes back late: its answer must not replace the new holder's claim.
    if (abandoned.kind === 'first') await store.remember(abandoned.claim, { status: 201, body: { late: true } });
    expect((await store.claim('org', 'k', 'f', Date.now())).kind).toBe('running');
    if (taken.kind === 'first') await store.remember(taken.claim, { status: 201, body: { on: 'time' } });
    expect(await store.claim('org', 'k', 'f', Date.now())).toEqual({
      kind: 'replay', answer: { status: 201, body: { on: 'time' } },
    });
  });
});
