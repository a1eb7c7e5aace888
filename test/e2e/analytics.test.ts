import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { daysBefore, deleteOldAnalytics, utcDay } from '../../shared/domain/analytics/analytics-days.ts';
import { api, organizationWithMastodon } from '../support/fixtures.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { waitFor } from '../support/stack.ts';
import { gatherAnalyticsPayload, QueueName } from '../../shared/queue/queues.ts';

type Series = { label: string; data: { total: number; date: string }[]; percentageChange: number }[];

/**
 * Analytics from gathering to the routes: the analytics worker reads Mastodon's counters through
 * the adapter into daily buckets, the routes answer from them at once and ask for a new reading
 * when they are stale. The schedule runs every second here, as it would every few hours.
 */
describe('analytics gathered by workers and served from MongoDB', () => {
  const world = useSimulatedStack({
    overrides: { ANALYTICS_EVERY_MS: '1000', ANALYTICS_PACE_MS: '0', ANALYTICS_FRESH_MS: '600000' },
  });

  async function organization() {
    const username = `stats${Math.random().toString(36).slice(2, 8)}`;
    const token = world.simulator.addAccount(username);
    return { username, ...(await organizationWithMastodon(world.ctx, world.simulator.origin, token)) };
  }
  const get = (apiKey: string, path: string) => api(world.stack.baseUrl, apiKey, `/api/public/v1${path}`);
  const labels = (body: unknown) => (body as Series).map((series) => series.label);

  it('gathers a channel\'s and its posts\' counters on schedule and serves them as the contract says', async () => {
    const org = await organization();
    world.simulator.setFollowers(org.username, 42);
    const postId = await publishNow(world.stack.baseUrl, org, ['Counted post']);
    const [root] = await settledParts(world.ctx.db, postId);
    world.simulator.react(root?.releaseId ?? '', { favourites: 5, reblogs: 2 });

    // Nobody asks: the schedule alone brings the post's counters in.
    await waitFor(
      async () => {
        const day = await world.ctx.db.analyticsDays.findOne({ subjectId: postId }).lean();
        return day?.counters.some((counter) => counter.label === 'Favourites' && counter.value === 5)
          ? day
          : undefined;
      },
      { what: 'the post\'s counters to be gathered', timeoutMs: 20_000 },
    );

    const channel = await get(org.apiKey, `/analytics/${org.channelId}?date=7`);
    expect(channel.status).toBe(200);
    const followers = (channel.body as Series).find((series) => series.label === 'Followers');
    expect(followers).toEqual({
      label: 'Followers',
      data: [{ total: 42, date: utcDay(new Date()) }],
      percentageChange: 0,
    });
    expect(labels(channel.body)).toEqual(expect.arrayContaining(['Followers', 'Following', 'Posts']));
    expect(Date.parse(channel.headers.get('x-analytics-fetched-at') ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(channel.headers.get('x-analytics-refreshing')).toBeNull();

    const post = await get(org.apiKey, `/analytics/post/${postId}`);
    expect(post.status).toBe(200);
    expect((post.body as Series).find((series) => series.label === 'Favourites')?.data.at(-1)?.total).toBe(5);
    expect((post.body as Series).find((series) => series.label === 'Boosts')?.data.at(-1)?.total).toBe(2);
  });

  it('answers [] for a platform with no analytics, {missing: true} for a post with no release id', async () => {
    const org = await organization();
    const nostr = await world.ctx.db.channels.create({
      organizationId: new Types.ObjectId(org.organizationId),
      provider: 'nostr',
      name: 'Relay notes',
      accountId: 'npub-analytics',
      tokenSealed: world.ctx.secrets.seal('{}'),
      picture: null,
    });
    const none = await get(org.apiKey, `/analytics/${nostr._id.toString()}`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
    expect(none.headers.get('x-analytics-refreshing')).toBeNull();

    const postId = await publishNow(world.stack.baseUrl, org, ['Lost track of it']);
    await settledParts(world.ctx.db, postId);
    await world.ctx.db.posts.updateOne({ _id: postId }, { $set: { releaseId: 'missing' } });
    expect((await get(org.apiKey, `/analytics/post/${postId}`)).body).toEqual({ missing: true });
  });

  it('answers 404 for another organization\'s channel or post, and 400 for days that are not a number', async () => {
    const owner = await organization();
    const other = await organization();
    expect((await get(other.apiKey, `/analytics/${owner.channelId}`)).status).toBe(404);
    expect((await get(other.apiKey, `/analytics/post/${new Types.ObjectId().toString()}`)).status).toBe(404);
    expect((await get(owner.apiKey, `/analytics/${owner.channelId}?date=week`)).status).toBe(400);
  });

  it('skips a channel that must be reconnected instead of retrying it', async () => {
    const org = await organization();
    await world.ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { refreshNeeded: true } });
    const answer = await get(org.apiKey, `/analytics/${org.channelId}`);
    expect(answer.body).toEqual([]);
    expect(answer.headers.get('x-analytics-refreshing')).toBeNull();
    // Two schedule runs later nothing was read for it.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await world.ctx.db.analyticsDays.countDocuments({ subjectId: new Types.ObjectId(org.channelId) })).toBe(0);
  });

  it('waits for the platform\'s rate-limit reset without spending an attempt, then reads', async () => {
    await organization();
    const throttledAt = Date.now();
    // Long enough that a busy machine still sees the job waiting before it runs again.
    world.simulator.throttleNextReads(4_000);
    const redis = new Redis(world.ctx.config.REDIS_URL);
    const queue = new Queue(QueueName.analytics, { connection: redis, prefix: world.ctx.config.QUEUE_PREFIX });
    try {
      // The schedule reads every channel each second: whichever gathering meets the 429 waits for its reset.
      const throttled = await waitFor(
        async () => {
          const delayed = await queue.getJobs(['delayed']);
          return delayed.find((job) => gatherAnalyticsPayload.parse(job.data).rateLimitDelays === 1);
        },
        { what: 'a gathering to wait for the reset', timeoutMs: 20_000 },
      );
      expect(throttled.attemptsMade).toBe(0);
      const throttledChannel = new Types.ObjectId(gatherAnalyticsPayload.parse(throttled.data).channelId);
      // Any reading made after the reset: the channel may have older days from earlier schedule runs,
      // which a look at its first day would find instead.
      const afterReset = new Date(throttledAt + 3_500);
      const day = await waitFor(
        async () => {
          const found = await world.ctx.db.analyticsDays
            .findOne({ subjectId: throttledChannel, fetchedAt: { $gte: afterReset } })
            .lean();
          return found ?? undefined;
        },
        { what: 'the reading after the reset', timeoutMs: 20_000 },
      );
      expect(day.counters.map((counter) => counter.label)).toContain('Followers');
    } finally {
      await queue.close();
      await redis.quit();
    }
  });

  it('removes days past the retention and keeps the others', async () => {
    const subjectId = new Types.ObjectId();
    const base = {
      organizationId: new Types.ObjectId(),
      channelId: subjectId,
      subject: 'channel' as const,
      subjectId,
      counters: [],
      fetchedAt: new Date(),
    };
    const now = new Date();
    await world.ctx.db.analyticsDays.create([
      { ...base, day: daysBefore(now, 401) },
      { ...base, day: daysBefore(now, 399) },
    ]);
    expect(await deleteOldAnalytics(world.ctx.db, now, 400)).toBeGreaterThanOrEqual(1);
    const left = await world.ctx.db.analyticsDays.find({ subjectId }).lean();
    expect(left.map((day) => day.day)).toEqual([daysBefore(now, 399)]);
  });
});

/**
 * The stale answer on its own stack, whose workers serve the analytics queue alone: no schedule
 * runs there (it is a maintenance job), so nothing but the route can replace the two-day-old
 * reading. A schedule's run, even one at start-up, could read the new channel before the route.
 */
describe('analytics asked for by the routes when stale', () => {
  const quiet = useSimulatedStack({
    overrides: { WORKER_QUEUES: 'analytics', ANALYTICS_PACE_MS: '0', ANALYTICS_FRESH_MS: '600000' },
  });
  const get = (apiKey: string, path: string) => api(quiet.stack.baseUrl, apiKey, `/api/public/v1${path}`);

  async function organization() {
    const username = `stale${Math.random().toString(36).slice(2, 8)}`;
    const token = quiet.simulator.addAccount(username);
    return { username, ...(await organizationWithMastodon(quiet.ctx, quiet.simulator.origin, token)) };
  }

  it('answers stale data at once, says how old it is, and asks the workers for a new reading', async () => {
    const org = await organization();
    quiet.simulator.setFollowers(org.username, 10);
    const channelId = new Types.ObjectId(org.channelId);
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    // Only stored data: the channel has no published post, and this reading is two days old.
    await quiet.ctx.db.analyticsDays.deleteMany({ subjectId: channelId });
    await quiet.ctx.db.analyticsDays.create({
      organizationId: new Types.ObjectId(org.organizationId),
      channelId,
      subject: 'channel',
      subjectId: channelId,
      day: utcDay(twoDaysAgo),
      counters: [{ label: 'Followers', value: 8 }],
      fetchedAt: twoDaysAgo,
    });
    await quiet.ctx.db.channels.updateOne({ _id: channelId }, { $set: { refreshNeeded: false } });

    const stale = await get(org.apiKey, `/analytics/${org.channelId}`);
    expect(stale.headers.get('x-analytics-fetched-at')).toBe(twoDaysAgo.toISOString());
    expect(stale.headers.get('x-analytics-refreshing')).toBe('true');
    const [first] = stale.body as Series;
    expect(first?.data.at(0)).toEqual({ total: 8, date: utcDay(twoDaysAgo) });

    const fresh = await waitFor(
      async () => {
        const answer = await get(org.apiKey, `/analytics/${org.channelId}`);
        const points = (answer.body as Series).find((series) => series.label === 'Followers')?.data ?? [];
        return points.length === 2 ? points : undefined;
      },
      { what: 'a new reading after the stale answer', timeoutMs: 20_000 },
    );
    expect(fresh).toEqual([
      { total: 8, date: utcDay(twoDaysAgo) },
      { total: 10, date: utcDay(new Date()) },
    ]);
    const answer = await get(org.apiKey, `/analytics/${org.channelId}`);
    expect((answer.body as Series).find((series) => series.label === 'Followers')?.percentageChange).toBe(25);
  });
});
