import { Redis } from 'ioredis';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

interface Problem {
  channel: string | null;
  post: number | null;
  part: number | null;
  path: string;
  code: string;
  message: string;
}
interface Validation { valid: boolean; problems: Problem[] }
interface ErrorBody { error: string; message: string; details?: { path: string; message: string }[] }

describe('POST /posts/validate: a dry run of POST /posts (workers stopped)', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;
  let mastodonId: string;
  let discordId: string;
  let otherOrganizationChannelId: string;

  beforeAll(async () => {
    ctx = await createTestContext({ PUBLIC_API_RATE_LIMIT: '30', PUBLIC_API_VALIDATE_RATE_LIMIT: '60' });
    stack = await startStack(ctx, { workers: false });
    const ours = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'token');
    ({ apiKey, channelId: mastodonId } = ours);
    const discord = await ctx.db.channels.create({
      organizationId: ours.organizationId, provider: 'discord', name: 'Our Discord', accountId: 'discord-1',
      tokenSealed: ctx.secrets.seal('token'),
    });
    discordId = discord._id.toString();
    const other = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'token');
    otherOrganizationChannelId = other.channelId;
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const validate = (body: unknown, key = apiKey, headers: Record<string, string> = {}) =>
    api(stack.baseUrl, key, '/api/public/v1/posts/validate', { method: 'POST', body, headers });
  const create = (body: unknown, key = apiKey) =>
    api(stack.baseUrl, key, '/api/public/v1/posts', { method: 'POST', body });

  /** Everything a dry run must leave as it found it. */
  async function storedState(): Promise<unknown> {
    const redis = new Redis(ctx.config.REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      return {
        posts: await ctx.db.posts.countDocuments(),
        media: await ctx.db.media.countDocuments(),
        jobs: await stack.publishQueue.getJobCounts(),
        idempotency: await redis.keys(`${ctx.config.QUEUE_PREFIX}:idempotency*`),
      };
    } finally {
      await redis.quit();
    }
  }

  const missingMedia = { id: new Types.ObjectId().toString(), path: 'cover.png' };
  // Built lazily: the ids exist once beforeAll has run.
  const cases = () => ({
    'too long for Mastodon': {
      post: { integration: { id: mastodonId }, value: [{ content: 'Short opener' }, { content: 'x'.repeat(501) }] },
      expected: { channel: mastodonId, part: 1, path: 'posts.0.value.1.content', code: 'validation_failed' },
    },
    'a bad Discord setting': {
      post: { integration: { id: discordId }, settings: { channel: 'general' }, value: [{ content: 'Hello' }] },
      expected: { channel: discordId, part: null, path: 'posts.0.settings.channel', code: 'validation_failed' },
    },
    'a missing media': {
      post: {
        integration: { id: mastodonId }, value: [{ content: 'Text' }, { content: 'Pic', image: [missingMedia] }],
      },
      expected: { channel: mastodonId, part: 1, path: 'posts.0.value.1.image.0', code: 'unknown_media' },
    },
    'a channel of another organization': {
      post: { integration: { id: otherOrganizationChannelId }, value: [{ content: 'Not ours' }] },
      expected: { channel: otherOrganizationChannelId, part: null, path: 'posts.0.integration.id', code: 'not_found' },
    },
  });

  it('answers valid with no problems for a post POST /posts accepts; stores, imports and queues nothing', async () => {
    const before = await storedState();
    const body = {
      type: 'schedule',
      date: new Date(Date.now() + 3_600_000).toISOString(),
      posts: [
        {
          integration: { id: mastodonId },
          settings: { visibility: 'unlisted' },
          // Given by URL: POST /posts would import it; a dry run only takes it as an import to come.
          value: [{ content: 'Launch day', image: [{ id: 'new-cover', path: 'https://cdn.example.com/cover.png' }] }],
        },
        { integration: { id: discordId }, settings: { channel: '123456789012345678' }, value: [{ content: 'Hi' }] },
      ],
    };
    const response = await validate(body, apiKey, { 'Idempotency-Key': 'dry-run-1' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ valid: true, problems: [] });
    expect(await storedState()).toEqual(before);
  });

  it.each(Object.keys(cases()))('answers %s on its channel and part, with the code and message POST /posts gives',
    async (name) => {
      const { post, expected } = cases()[name as keyof ReturnType<typeof cases>];
      const before = await storedState();
      const body = { type: 'now', posts: [post] };
      const dryRun = await validate(body);
      expect(dryRun.status).toBe(200);
      const { valid, problems } = dryRun.body as Validation;
      expect(valid).toBe(false);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ ...expected, post: 0 });

      const refused = await create(body);
      expect(refused.status).toBeGreaterThanOrEqual(400);
      const error = refused.body as ErrorBody;
      expect(error.error).toBe(problems[0]?.code);
      expect(error.details).toEqual([{ path: problems[0]?.path, message: problems[0]?.message }]);
      expect(await storedState()).toEqual(before);
    });

  it('answers every problem of a request at once, each on its own channel post, where POST /posts stops at the first',
    async () => {
      const all = cases();
      const posts = [
        all['a channel of another organization'].post,
        all['a bad Discord setting'].post,
        all['too long for Mastodon'].post,
        all['a missing media'].post,
      ];
      const response = await validate({ type: 'now', posts });
      expect(response.status).toBe(200);
      const { valid, problems } = response.body as Validation;
      expect(valid).toBe(false);
      const placed = problems.map(({ channel, post, part, path, code }) => ({ channel, post, part, path, code }));
      expect(placed).toEqual(expect.arrayContaining([
        {
          channel: otherOrganizationChannelId, post: 0, part: null, path: 'posts.0.integration.id', code: 'not_found',
        },
        { channel: discordId, post: 1, part: null, path: 'posts.1.settings.channel', code: 'validation_failed' },
        { channel: mastodonId, post: 2, part: 1, path: 'posts.2.value.1.content', code: 'validation_failed' },
        { channel: mastodonId, post: 3, part: 1, path: 'posts.3.value.1.image.0', code: 'unknown_media' },
      ]));
      expect(problems).toHaveLength(4);
      const tooLong = problems.find((problem) => problem.path === 'posts.2.value.1.content');
      expect(tooLong?.message).toBe('Mastodon channel "Our Mastodon": has 501 characters; Mastodon allows 500');
    });

  it('answers problems of the request as a whole without a channel', async () => {
    const posts = [{ integration: { id: mastodonId }, value: [{ content: 'When?' }] }];
    const response = await validate({ type: 'schedule', posts });
    expect(response.body).toEqual({
      valid: false,
      problems: [{
        channel: null, post: null, part: null, path: 'date', code: 'validation_failed',
        message: 'required when type is "schedule"',
      }],
    });
  });

  it('checks the posting slots a `queue` post would take, on the channel whose schedule has none', async () => {
    const { organizationId, apiKey: key } = await createOrganization(ctx.db, ctx.secrets, { name: 'Slots' });
    const channel = await ctx.db.channels.create({
      organizationId, provider: 'discord', name: 'No slots', accountId: 'discord-slots',
      tokenSealed: ctx.secrets.seal('token'), postingSlots: [],
    });
    const id = channel._id.toString();
    const body = {
      type: 'queue',
      posts: [{
        integration: { id }, settings: { channel: '123456789012345678' }, value: [{ content: 'Next free slot' }],
      }],
    };
    const dryRun = await validate(body, key);
    const { problems } = dryRun.body as Validation;
    expect(problems).toMatchObject([
      { channel: id, post: 0, part: null, path: 'posts.0.integration.id', code: 'conflict' },
    ]);
    const refused = await create(body, key);
    expect(refused.body).toMatchObject({ error: 'conflict', message: problems[0]?.message });
  });

  it('answers a body the schema refuses exactly as POST /posts does', async () => {
    const unknownType = { type: 'later', posts: [{ integration: { id: 'x' }, value: [{ content: 'a' }] }] };
    for (const body of [{ type: 'now', posts: [] }, unknownType]) {
      const dryRun = await validate(body);
      const refused = await create(body);
      expect(dryRun.status).toBe(400);
      expect(dryRun.body).toEqual(refused.body);
    }
    const broken = await api(stack.baseUrl, apiKey, '/api/public/v1/posts/validate', {
      method: 'POST', rawBody: '{"type":', headers: { 'Content-Type': 'application/json' },
    });
    expect(broken).toMatchObject({ status: 400, body: { error: 'invalid_json' } });
  });

  it('counts against its own budget: POST /posts still takes its full 30 after the dry runs, which stop at theirs',
    async () => {
      const { organizationId, apiKey: key } = await createOrganization(ctx.db, ctx.secrets, { name: 'Budget' });
      const channel = await ctx.db.channels.create({
        organizationId, provider: 'discord', name: 'Budget Discord', accountId: 'discord-budget',
        tokenSealed: ctx.secrets.seal('token'),
      });
      const body = {
        type: 'draft',
        posts: [{
          integration: { id: channel._id.toString() },
          settings: { channel: '123456789012345678' },
          value: [{ content: 'Draft' }],
        }],
      };
      const dryRuns = await Promise.all(Array.from({ length: 61 }, () => validate(body, key)));
      expect(dryRuns.filter((response) => response.status === 200)).toHaveLength(60);
      const over = dryRuns.find((response) => response.status === 429);
      expect(over?.body).toMatchObject({ error: 'rate_limited' });
      expect(over?.headers.get('ratelimit-policy')).toBe('"post-validation";q=60;w=3600');

      const created = [];
      for (let index = 0; index < 30; index += 1) created.push(await create(body, key));
      expect(created.map((response) => response.status)).toEqual(Array.from({ length: 30 }, () => 201));
      expect(created[0]?.headers.get('x-ratelimit-remaining')).toBe('29');
      expect((await create(body, key)).status).toBe(429);
    });
});
