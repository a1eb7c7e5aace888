import { Redis } from 'ioredis';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { openDatabase } from '../../db/database.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type {
  CommentInput,
  PlatformAdapter,
  PublishInput,
  PublishResult,
} from '../../platforms/kit/platform-adapter.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import { PlatformApps } from '../../platforms/platform-apps.ts';
import { createStorage } from '../../storage/create-storage.ts';
import { ChannelTokens } from '../channels/channel-tokens.ts';
import { createOrganization } from '../organizations/organizations.ts';
import { changePostStatus } from '../posts/post-changes.ts';
import type { PublishScheduler } from '../posts/publish-scheduler.ts';
import { registerEndpoint } from '../webhooks/webhook-endpoints.ts';
import { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import { failThread, publishThread, type PublishDeps } from './publish-thread.ts';

type Step = (input: PublishInput) => Promise<PublishResult>;

/**
 * A platform scripted by each test, in the place of Mastodon's adapter, behind the adapter
 * interface: the engine's part of the checkpoint and unconfirmed contracts is what is tested here;
 * each real adapter's part is tested against its platform.
 */
class ScriptedPlatform implements PlatformAdapter {
  readonly provider = 'mastodon';
  readonly tools = {};
  readonly calls: { content: string; checkpoint: Record<string, string> }[] = [];
  steps: Step[] = [];

  #next(input: PublishInput): Promise<PublishResult> {
    this.calls.push({ content: input.content, checkpoint: { ...input.checkpoint.values } });
    const step = this.steps.shift();
    if (step === undefined)
      return Promise.resolve({ releaseId: `id-${input.content}`, releaseURL: `https://p/${input.content}` });
    return step(input);
  }

  publish(input: PublishInput): Promise<PublishResult> {
    return this.#next(input);
  }

  comment(input: CommentInput): Promise<PublishResult> {
    return this.#next(input);
  }

  recentContent(): Promise<{ id: string; url: string }[]> {
    return Promise.resolve([]);
  }
}

describe('publishThread: checkpoints and unconfirmed parts', () => {
  let ctx: TestContext;
  let redis: Redis;
  let deps: PublishDeps;
  let organizationId: string;
  let channelId: Types.ObjectId;
  const platform = new ScriptedPlatform();
  const scheduled: string[] = [];
  const scheduler: PublishScheduler = {
    schedule: (job) => {
      scheduled.push(job.postId);
      return Promise.resolve();
    },
    cancel: () => Promise.resolve('absent'),
  };

  beforeAll(async () => {
    ctx = await createTestContext();
    redis = new Redis(ctx.config.REDIS_URL);
    const platforms = new PlatformApps({}, { timeoutMs: 1_000, userHosts: connectionPolicyFor(true) });
    const webhooks = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() });
    deps = {
      db: ctx.db,
      adapters: new Map([['mastodon', platform]]),
      tokens: new ChannelTokens({
        db: ctx.db,
        secrets: ctx.secrets,
        redis,
        lockPrefix: ctx.config.QUEUE_PREFIX,
        refresherFor: (provider) => platforms.refresherFor(provider),
        refreshAheadMs: 60_000,
        refreshTimeoutMs: 1_000,
        now: () => new Date(),
        webhooks,
      }),
      storage: await createStorage(ctx.config),
      now: () => new Date(),
      webhooks,
    };
    const org = await createOrganization(ctx.db, ctx.secrets, { name: 'Scripted' });
    organizationId = org.organizationId;
    const channel = await ctx.db.channels.create({
      organizationId: org.organizationId,
      provider: 'mastodon',
      name: 'Scripted',
      instanceUrl: 'https://m.example',
      tokenSealed: ctx.secrets.seal('t'),
    });
    channelId = channel._id;
  });
  afterAll(async () => {
    await redis.quit();
    await ctx.cleanup();
  });

  /**
   * A due thread of `texts` on the scripted channel; answers the root's id. Stored without a reply
   * count (as before roots counted them) unless `replyCount` is given.
   */
  async function thread(texts: string[], replyCount?: number): Promise<string> {
    const rootId = new Types.ObjectId();
    const common = {
      organizationId,
      channelId,
      group: rootId.toString(),
      publishDate: new Date(Date.now() - 1_000),
      state: 'QUEUE',
      settings: {},
    };
    await ctx.db.posts.insertMany(
      texts.map((content, position) => ({
        ...common,
        _id: position === 0 ? rootId : new Types.ObjectId(),
        rootPostId: position === 0 ? null : rootId,
        position,
        content,
        ...(position === 0 && replyCount !== undefined ? { replyCount } : {}),
      })),
    );
    return rootId.toString();
  }

  const parts = (rootId: string) =>
    ctx.db.posts
      .find({ $or: [{ _id: rootId }, { rootPostId: rootId }] })
      .sort({ position: 1 })
      .lean();

  it('stores what an attempt saved before failing, and gives it to the next attempt at the same part', async () => {
    const rootId = await thread(['Saved 1/2', 'Saved 2/2']);
    platform.steps = [
      (input) => Promise.resolve({ releaseId: `id-${input.content}`, releaseURL: 'https://p/1' }),
      async (input) => {
        await input.checkpoint.save({ containerId: 'c-17' });
        await input.checkpoint.save({ childId: 'c-18' });
        throw new PlatformError({ kind: 'retryable', provider: 'mastodon', message: 'the connection was reset' });
      },
    ];
    await expect(publishThread(deps, rootId)).rejects.toThrow('the connection was reset');
    expect((await parts(rootId))[1]?.checkpoint).toEqual({ containerId: 'c-17', childId: 'c-18' });

    platform.calls.length = 0;
    expect(await publishThread(deps, rootId)).toMatchObject({ kind: 'published' });
    expect(platform.calls).toEqual([{ content: 'Saved 2/2', checkpoint: { containerId: 'c-17', childId: 'c-18' } }]);
    expect((await parts(rootId)).map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
  });

  it('sets an unconfirmed part aside (release id "missing"), tells the organization, never resends it', async () => {
    const rootId = await thread(['Maybe 1/3', 'Maybe 2/3', 'Maybe 3/3']);
    platform.steps = [
      (input) => Promise.resolve({ releaseId: `id-${input.content}`, releaseURL: 'https://p/maybe' }),
      () =>
        Promise.reject(
          new PlatformError({
            kind: 'unconfirmed',
            provider: 'mastodon',
            message: 'the container was published but no pin carries it',
          }),
        ),
    ];
    const failure = await publishThread(deps, rootId).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PlatformError);
    await failThread(deps, rootId, failure as PlatformError);

    const [first, second, third] = await parts(rootId);
    expect(first).toMatchObject({ state: 'PUBLISHED', releaseId: 'id-Maybe 1/3' });
    expect(second).toMatchObject({
      state: 'ERROR',
      releaseId: 'missing',
      error: 'unconfirmed: the container was published but no pin carries it',
    });
    expect(third).toMatchObject({ state: 'ERROR', releaseId: null });
    const notice = await ctx.db.notifications.findOne({ content: { $regex: 'may have been published' } }).lean();
    expect(notice?.content).toContain('SPS did not send it again');

    platform.calls.length = 0;
    expect(await publishThread(deps, rootId)).toMatchObject({ kind: 'skipped' });
    expect(platform.calls).toEqual([]);
  });

  it('lets the user schedule an unconfirmed post again once checked, starting from a clean checkpoint', async () => {
    const rootId = await thread(['Unsure']);
    platform.steps = [
      async (input) => {
        await input.checkpoint.save({ containerId: 'c-99' });
        throw new PlatformError({ kind: 'unconfirmed', provider: 'mastodon', message: 'no answer after publishing' });
      },
    ];
    const failure = await publishThread(deps, rootId).catch((error: unknown) => error);
    await failThread(deps, rootId, failure as PlatformError);
    expect((await parts(rootId))[0]).toMatchObject({ state: 'ERROR', releaseId: 'missing' });

    const changed = await changePostStatus(
      { db: ctx.db, scheduler, now: () => new Date() },
      organizationId,
      rootId,
      'schedule',
    );
    expect(changed).toEqual({ id: rootId, state: 'QUEUE' });
    expect(scheduled).toContain(rootId);
    expect((await parts(rootId))[0]).toMatchObject({
      state: 'QUEUE',
      releaseId: null,
      checkpoint: null,
      error: null,
    });

    platform.calls.length = 0;
    expect(await publishThread(deps, rootId)).toMatchObject({ kind: 'published' });
    expect(platform.calls).toEqual([{ content: 'Unsure', checkpoint: {} }]);
  });
  it('refuses a checkpoint key the database would read as a path, before the platform is called again', async () => {
    const rootId = await thread(['Dotted']);
    platform.steps = [async (input) => {
      await input.checkpoint.save({ 'media.0.id': 'm-1' });
      return { releaseId: 'never', releaseURL: 'https://p/never' };
    }];
    await expect(publishThread(deps, rootId)).rejects.toThrow('checkpoint key "media.0.id" is not allowed');
    expect((await parts(rootId))[0]).toMatchObject({ state: 'QUEUE', releaseId: null, checkpoint: null });
  });

  it('starts a failed post scheduled again from a clean checkpoint', async () => {
    const rootId = await thread(['Failed once']);
    platform.steps = [async (input) => {
      await input.checkpoint.save({ postAttemptAt: '2026-11-25T02:00:00.000Z' });
      throw new PlatformError({ kind: 'permanent', provider: 'mastodon', message: 'refused' });
    }];
    const failure = await publishThread(deps, rootId).catch((error: unknown) => error);
    await failThread(deps, rootId, failure as PlatformError);
    const failed = (await parts(rootId))[0];
    expect(failed).toMatchObject({ state: 'ERROR', checkpoint: { postAttemptAt: '2026-11-25T02:00:00.000Z' } });

    await changePostStatus({ db: ctx.db, scheduler, now: () => new Date() }, organizationId, rootId, 'schedule');
    platform.calls.length = 0;
    expect(await publishThread(deps, rootId)).toMatchObject({ kind: 'published' });
    expect(platform.calls).toEqual([{ content: 'Failed once', checkpoint: {} }]);
  });

  it('reads the webhook endpoints again after a long publish, so one registered meanwhile hears of it', async () => {
    const rootId = await thread(['A long upload']);
    let clock = Date.now();
    const hints = { organizationId, channelId: channelId.toString() };
    const endpointDeps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true) };
    let endpointId = '';
    platform.steps = [async (input) => {
      // Registered while the platform takes its time, after the job read the (no) endpoints.
      const { endpoint } = await registerEndpoint(endpointDeps, organizationId, {
        url: 'https://hooks.example.com/sps', events: ['post.published'],
      });
      endpointId = endpoint.id;
      clock += 60_000;
      return { releaseId: `id-${input.content}`, releaseURL: 'https://p/long' };
    }];
    const outcome = await publishThread({ ...deps, now: () => new Date(clock) }, rootId, hints);
    expect(outcome).toMatchObject({ kind: 'published' });
    const deliveries = await ctx.db.webhookDeliveries.find({ endpointId: new Types.ObjectId(endpointId) }).lean();
    expect(deliveries.map((delivery) => delivery.event)).toEqual(['post.published']);
  });
  it('tells a publication once however often its job runs: again after it settled, or two runs at once', async () => {
    const endpointDeps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true) };
    const { endpoint } = await registerEndpoint(endpointDeps, organizationId, {
      url: 'https://hooks.example.com/once', events: ['post.published'],
    });
    const told = async (text: string, rootId: string) => {
      const [notifications, deliveries] = await Promise.all([
        ctx.db.notifications.countDocuments({ content: { $regex: `at https://p/${text}$` } }),
        ctx.db.webhookDeliveries.find({ endpointId: new Types.ObjectId(endpoint.id) }).lean(),
      ]);
      return { notifications, deliveries: deliveries.filter((delivery) => delivery.body.includes(rootId)).length };
    };

    const settled = await thread(['Told-once-settled']);
    expect(await publishThread(deps, settled)).toMatchObject({ kind: 'published' });
    expect(await publishThread(deps, settled)).toMatchObject({ kind: 'published' });
    expect(await told('Told-once-settled', settled)).toEqual({ notifications: 1, deliveries: 1 });
    expect(platform.calls.filter((call) => call.content === 'Told-once-settled')).toHaveLength(1);

    // Two workers on the same post (a job taken over while its worker still runs): the platform's
    // idempotency gives both the same release, and the organization hears of it once.
    const racing = await thread(['Told-once-racing']);
    const outcomes = await Promise.all([publishThread(deps, racing), publishThread(deps, racing)]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['published', 'published']);
    expect(await told('Told-once-racing', racing)).toEqual({ notifications: 1, deliveries: 1 });
  });
  it('reads the replies only when the root counts some: a reply an edit to one part left stays out', async () => {
    // An edit from two parts to one wrote the root's count, then stopped before deleting the reply.
    const single = await thread(['Edited to one', 'Left behind'], 0);
    platform.calls.length = 0;
    expect(await publishThread(deps, single)).toMatchObject({ kind: 'published' });
    expect(platform.calls.map((call) => call.content)).toEqual(['Edited to one']);

    const counted = await thread(['Counted 1/2', 'Counted 2/2'], 1);
    platform.calls.length = 0;
    expect(await publishThread(deps, counted)).toMatchObject({ kind: 'published' });
    expect(platform.calls.map((call) => call.content)).toEqual(['Counted 1/2', 'Counted 2/2']);
  });
  it('publishes one part with 6 database commands: 3 reads, the result, the notification, the event', async () => {
    const monitored = await openDatabase(ctx.config.MONGO_URL, { monitorCommands: true });
    const sent: string[] = [];
    monitored.connection.getClient().on('commandStarted', (event) => { sent.push(event.commandName); });
    try {
      const endpointDeps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true) };
      await registerEndpoint(endpointDeps, organizationId, {
        url: 'https://hooks.example.com/counted', events: ['post.published'],
      });
      const webhooks = new WebhookOutbox({ db: monitored, logger: ctx.logger, now: () => new Date() });
      const counted = { ...deps, db: monitored, webhooks };
      const hints = { organizationId, channelId: channelId.toString() };
      const single = await thread(['Counted commands'], 0);
      sent.length = 0;
      expect(await publishThread(counted, single, hints)).toMatchObject({ kind: 'published' });
      expect(sent.toSorted()).toEqual(['find', 'find', 'find', 'insert', 'insert', 'update']);

      // A thread adds its replies' read and one result per reply.
      const pair = await thread(['Counted 1/2 commands', 'Counted 2/2 commands'], 1);
      sent.length = 0;
      expect(await publishThread(counted, pair, hints)).toMatchObject({ kind: 'published' });
      expect(sent.toSorted()).toEqual(['find', 'find', 'find', 'find', 'insert', 'insert', 'update', 'update']);
    } finally {
      await monitored.close();
    }
  });
});
