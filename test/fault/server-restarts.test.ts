import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { api, organizationWithMastodon } from '../support/fixtures.ts';
import { startPrivateFerretDb, startPrivateRedis, type RestartableServer } from '../support/restartable-servers.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { PostLoad, type LoadAttempt } from './post-load.ts';
import { threadOutcomes } from './thread-outcomes.ts';

/**
 * Redis, then the MongoDB-wire server, killed and started again while posts are created and
 * published. Both are this file's own (the suite's shared servers serve other files meanwhile);
 * Redis keeps nothing on disk, so its restart loses every job and the sweep must find them.
 * The api and the workers run in this process.
 */
describe('Redis and the MongoDB-wire server restarted under load', () => {
  const simulator = new MastodonSimulator();
  let redis: RestartableServer;
  let ferret: RestartableServer;
  let ctx: TestContext;
  let stack: RunningStack;

  beforeAll(async () => {
    await simulator.start();
    [redis, ferret] = await Promise.all([startPrivateRedis('none'), startPrivateFerretDb()]);
    ctx = await createTestContext({
      REDIS_URL: redis.url,
      MONGO_URL: `${ferret.url}sps_fault_restarts`,
      PUBLISH_BACKOFF_MS: '200',
      // The sweep finds lost jobs: often here, so recovery takes seconds (production: every minute).
      PUBLISH_SWEEP_EVERY_MS: '300',
      PUBLISH_SWEEP_GRACE_MS: '300',
      // Enough publishes side by side that the backlog left by a restart drains within seconds.
      PUBLISH_CONCURRENCY: '20',
      // The workers' recoveries are logged at warn: the test counts them.
      LOG_LEVEL: 'warn',
    });
    stack = await startStack(ctx);
    // Each status takes the platform 150 ms, so jobs are waiting when a server goes away.
    simulator.failNext(...Array.from({ length: 2_000 }, () => ({ delayMs: 150 })));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await Promise.all([redis.dispose(), ferret.dispose()]);
    await simulator.stop();
  });

  interface DuePost {
    postId: string;
    parts: string[];
    dueAt: number;
  }

  interface RestartRun {
    load: PostLoad;
    /** Posts scheduled to fall due a moment after the server went away (their delayed jobs are in Redis). */
    scheduled: DuePost[];
    organizationId: string;
    upAt: number;
  }

  async function schedulePost(org: { apiKey: string; channelId: string }, label: string, dueAt: number) {
    const parts = [`${label} 1/2`, `${label} 2/2`];
    const response = await api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'schedule',
        date: new Date(dueAt).toISOString(),
        posts: [{ integration: { id: org.channelId }, value: parts.map((content) => ({ content })) }],
      },
    });
    expect(response.status).toBe(201);
    return { postId: (response.body as { postId: string }[])[0]?.postId ?? '', parts, dueAt };
  }

  /**
   * Runs the load (four callers side by side), schedules a few posts due in 1.5 s, kills `server`
   * while accepted posts are still waiting to be published, starts it again once callers are
   * being refused, and keeps the load going after its return.
   */
  async function restartUnderLoad(server: RestartableServer, label: string): Promise<RestartRun> {
    const org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount(label));
    // A channel (a Mastodon account) per caller: a worker calls one account at a time.
    const more = await Promise.all([1, 2, 3].map((caller) =>
      addTokenChannel(ctx.db, ctx.secrets, { allowPrivateNetwork: true }, {
        organizationId: org.organizationId, provider: 'mastodon', name: `${label} ${caller}`,
        instanceUrl: simulator.origin, token: simulator.addAccount(`${label}-${caller}`),
      })));
    const channelIds = [org.channelId, ...more.map((channel) => channel.id)];
    const load = new PostLoad({ ...org, channelIds, baseUrl: stack.baseUrl, label, paceMs: 200 });
    load.start(4);
    await waitFor(async () => {
      if (load.accepted().length < 8) return undefined;
      const waiting = await ctx.db.posts.countDocuments({ organizationId: org.organizationId, state: 'QUEUE' });
      return waiting >= 4 ? true : undefined;
    }, { what: `${label}: accepted posts waiting to be published` });
    const dueAt = Date.now() + 1_500;
    const scheduled = await Promise.all([1, 2, 3].map((index) => schedulePost(org, `${label} at ${index}`, dueAt)));
    await server.stop('SIGKILL');
    const refusedBefore = load.refused().length;
    // MongoDB callers may wait out the driver's server selection (10 s) before their 503.
    await waitFor(() => (load.refused().length >= refusedBefore + 3 ? true : undefined), {
      timeoutMs: 30_000, what: `${label}: callers refused while the server is down`,
    });
    await server.start();
    const upAt = Date.now();
    const acceptedBefore = load.accepted().length;
    await waitFor(() => (load.accepted().length >= acceptedBefore + 8 ? true : undefined), {
      timeoutMs: 30_000, what: `${label}: posts accepted after the restart`,
    });
    await load.stop();
    return { load, scheduled, organizationId: org.organizationId, upAt };
  }

  const recoveredBySweep = () => ctx.logLines.filter((line) => line.includes('"event":"post.recovered"')).length;
  const toldMaybeSaved = (attempt: LoadAttempt) => attempt.message?.includes('may have been saved') === true;

  /**
   * Every accepted post published exactly once, each refused caller answered 503 with the code,
   * and nothing of a refused post stored or published. A caller whose write was cut off by the
   * database going away is told it may have been saved (the server cannot know): if it was,
   * that post must be published once, like an accepted one.
   */
  async function checkOutcome(run: RestartRun, label: string, refusalCode: string): Promise<void> {
    const refused = run.load.refused();
    const savedAnyway = (await Promise.all(refused.filter(toldMaybeSaved).map(async (attempt): Promise<DuePost[]> => {
      const root = await ctx.db.posts.findOne({ content: attempt.parts[0], rootPostId: null }).lean();
      return root === null ? [] : [{ postId: root._id.toString(), parts: attempt.parts, dueAt: attempt.answeredAt }];
    }))).flat();
    const accepted: DuePost[] = [
      ...run.load.accepted().map(({ postId, parts, answeredAt }) => ({ postId, parts, dueAt: answeredAt })),
      ...run.scheduled,
      ...savedAnyway,
    ];
    const outcomes = await waitFor(async () => {
      const current = await threadOutcomes(ctx, simulator, run.organizationId, accepted).catch(() => undefined);
      return current?.every((outcome) => outcome.settled) === true ? current : undefined;
    }, { timeoutMs: 30_000, what: `${label}: every accepted post to settle` });

    const refusedForSure = refused.filter((attempt) => !savedAnyway.some(({ parts }) => parts[0] === attempt.parts[0]));
    const leftovers = await Promise.all(refusedForSure.map(async (attempt) => ({
      label: attempt.label,
      // Replies stored without their root (an insert cut short) are never published: allowed then.
      stored: toldMaybeSaved(attempt) ? 0 : await ctx.db.posts.countDocuments({ content: { $in: attempt.parts } }),
      published: simulator.statuses.filter((status) => attempt.parts.includes(status.text)).length,
    })));
    // Recovery: every post due before the server came back (or due in the 5 s after) is being
    // published again, its first part out, within 5 s of the return (or of its date). Drain: its
    // last part out; that also waits for the backlog, so it is reported, not bounded.
    const timings = await Promise.all(accepted.filter((post) => post.dueAt < run.upAt + 5_000).map(async (post) => {
      const parts = await ctx.db.posts.find({ content: { $in: post.parts } }).lean();
      const publishedAt = parts.map((part) => part.publishedAt?.getTime() ?? Number.POSITIVE_INFINITY);
      const resumedMs = Math.min(...publishedAt) - Math.max(run.upAt, post.dueAt);
      return { resumedMs, drainedMs: Math.max(...publishedAt) - run.upAt };
    }));
    const recoveryMs = Math.max(0, ...timings.map((timing) => timing.resumedMs));
    const drainMs = Math.max(0, ...timings.map((timing) => timing.drainedMs));
    const duplicates = outcomes.reduce((total, outcome) => total + outcome.duplicates, 0);
    const lost = outcomes.filter((outcome) => outcome.state !== 'PUBLISHED').length;
    process.stderr.write(`[fault: ${label}] restarts=1 accepted=${accepted.length} `
      + `(told "may have been saved" and saved: ${savedAnyway.length}) refused=${refusedForSure.length} `
      + `published=${accepted.length - lost} lost=${lost} duplicates=${duplicates} `
      + `recovery=${recoveryMs} ms drain=${drainMs} ms after the server's return\n`);

    const unsettled = outcomes.filter((outcome) => outcome.state !== 'PUBLISHED' || !outcome.consistent);
    expect(unsettled.map(({ postId, state, problem }) => ({ postId, state, problem }))).toEqual([]);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    const wrongAnswers = refused.filter((attempt) => attempt.status !== 503 || attempt.error !== refusalCode);
    expect(wrongAnswers.map(({ label: which, status, error }) => `${which}: ${status} ${String(error)}`)).toEqual([]);
    expect(leftovers.filter((leftover) => leftover.published > 0 || leftover.stored > 0)).toEqual([]);
    expect(recoveryMs).toBeLessThanOrEqual(5_000);
  }

  it('Redis restarted without its data: 503 queue_unavailable meanwhile, lost jobs re-queued, no duplicate', {
    timeout: 90_000,
  }, async () => {
    const recoveredBefore = recoveredBySweep();
    const run = await restartUnderLoad(redis, 'redis-restart');
    await checkOutcome(run, 'redis restart', 'queue_unavailable');
    // Redis kept nothing: the posts waiting at the restart were found again by the sweep.
    expect(recoveredBySweep() - recoveredBefore).toBeGreaterThan(0);
  });

  it('MongoDB-wire server restarted: 503 database_unavailable meanwhile, every accepted post published once', {
    timeout: 90_000,
  }, async () => {
    const run = await restartUnderLoad(ferret, 'mongodb-restart');
    await checkOutcome(run, 'mongodb restart', 'database_unavailable');
  });
});
