import { Types } from 'mongoose';
import { noCache } from '../../cache/invalidation-bus.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startScriptedPublishing,
  type ScriptedPlatform,
  type ScriptedPublishing,
} from '../../../test/support/scripted-publishing.ts';
import type { TestContext } from '../../../test/support/test-context.ts';
import { openDatabase } from '../../db/database.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import { changePostStatus } from '../posts/post-changes.ts';
import type { PublishScheduler } from '../posts/publish-scheduler.ts';
import { registerEndpoint } from '../webhooks/webhook-endpoints.ts';
import { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import type { PublishRunDeps } from './publish-deps.ts';
import { failThread, publishThread } from './publish-thread.ts';
import { RecentReads } from '../../cache/recent-reads.ts';
import type { StoredChannel } from '../channels/channel-tokens.ts';

describe('publishThread: checkpoints and unconfirmed parts', () => {
  let publishing: ScriptedPublishing;
  let ctx: TestContext;
  let deps: PublishRunDeps;
  let platform: ScriptedPlatform;
  let organizationId: string;
  let channelId: Types.ObjectId;
  const scheduled: string[] = [];
  const scheduler: PublishScheduler = {
    schedule: (job) => {
      scheduled.push(job.postId);
      return Promise.resolve();
    },
    cancel: () => Promise.resolve('absent'),
  };

  beforeAll(async () => {
    publishing = await startScriptedPublishing();
    ({ ctx, deps, platform, organizationId, channelId } = publishing);
  });
  afterAll(async () => {
    await publishing.close();
  });

  const thread = (texts: string[], replyCount?: number) => publishing.thread(texts, replyCount);

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
      { db: ctx.db, scheduler, now: () => new Date(), webhooks: deps.webhooks },
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

    const changeDeps = { db: ctx.db, scheduler, now: () => new Date(), webhooks: deps.webhooks };
    await changePostStatus(changeDeps, organizationId, rootId, 'schedule');
    platform.calls.length = 0;
    expect(await publishThread(deps, rootId)).toMatchObject({ kind: 'published' });
    expect(platform.calls).toEqual([{ content: 'Failed once', checkpoint: {} }]);
  });

  it('reads the webhook endpoints again after a long publish, so one registered meanwhile hears of it', async () => {
    const rootId = await thread(['A long upload']);
    let clock = Date.now();
    const hints = { organizationId, channelId: channelId.toString() };
    const endpointDeps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true), caches: noCache };
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
    const endpointDeps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true), caches: noCache };
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
  it('reads a channel once for the publishes of its reuse window, and every time without one', async () => {
    const monitored = await openDatabase(ctx.config.MONGO_URL, { monitorCommands: true });
    let channelReads = 0;
    monitored.connection.getClient().on('commandStarted', (event) => {
      if (event.commandName === 'find' && event.command.find === 'channels') channelReads += 1;
    });
    try {
      const hints = { organizationId, channelId: channelId.toString() };
      const reusing = { ...deps, db: monitored, recentChannels: new RecentReads<StoredChannel>(60_000) };
      const posts = await Promise.all([thread(['Reused 1'], 0), thread(['Reused 2'], 0), thread(['Reused 3'], 0)]);
      for (const post of posts) expect(await publishThread(reusing, post, hints)).toMatchObject({ kind: 'published' });
      expect(channelReads).toBe(1);

      const reading = { ...deps, db: monitored };
      const more = await Promise.all([thread(['Read 1'], 0), thread(['Read 2'], 0)]);
      for (const post of more) expect(await publishThread(reading, post, hints)).toMatchObject({ kind: 'published' });
      expect(channelReads).toBe(3);
    } finally {
      await monitored.close();
    }
  });
  it('publishes one part with 7 database commands: 3 reads, the result, notification, event, feed row', async () => {
    const monitored = await openDatabase(ctx.config.MONGO_URL, { monitorCommands: true });
    const sent: string[] = [];
    monitored.connection.getClient().on('commandStarted', (event) => { sent.push(event.commandName); });
    try {
      const endpointDeps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true), caches: noCache };
      await registerEndpoint(endpointDeps, organizationId, {
        url: 'https://hooks.example.com/counted', events: ['post.published'],
      });
      const webhooks = new WebhookOutbox({ db: monitored, logger: ctx.logger, now: () => new Date() });
      const counted = { ...deps, db: monitored, webhooks };
      const hints = { organizationId, channelId: channelId.toString() };
      const single = await thread(['Counted commands'], 0);
      sent.length = 0;
      expect(await publishThread(counted, single, hints)).toMatchObject({ kind: 'published' });
      expect(sent.toSorted()).toEqual(['find', 'find', 'find', 'insert', 'insert', 'insert', 'update']);

      // A thread adds its replies' read and one result per reply.
      const pair = await thread(['Counted 1/2 commands', 'Counted 2/2 commands'], 1);
      sent.length = 0;
      expect(await publishThread(counted, pair, hints)).toMatchObject({ kind: 'published' });
      expect(sent.toSorted()).toEqual([
        'find', 'find', 'find', 'find', 'insert', 'insert', 'insert', 'update', 'update',
      ]);
    } finally {
      await monitored.close();
    }
  });
});
