import { Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hourOf } from '../shared/domain/posts/due-bucket.ts';
import { createRedis } from '../shared/queue/redis.ts';
import { jobs, publishJobId, QueueName } from '../shared/queue/queues.ts';
import { MastodonSimulator } from '../test/simulators/mastodon/mastodon-simulator.ts';
import { api, organizationWithMastodon } from '../test/support/fixtures.ts';
import { startStack, waitFor, type RunningStack } from '../test/support/stack.ts';
import { createTestContext, type TestContext } from '../test/support/test-context.ts';
import { startConfiguredWorkers, type RunningWorkers } from './worker-runtime.ts';

interface World {
  ctx: TestContext;
  stack: RunningStack;
  org: { apiKey: string; organizationId: string; channelId: string };
}

/** The stack of one describe block (api, and workers unless told otherwise) with a Mastodon channel. */
function useWorld(overrides: Record<string, string>, options: { workers: boolean }) {
  const simulator = new MastodonSimulator();
  const world = {} as World;
  beforeAll(async () => {
    await simulator.start();
    world.ctx = await createTestContext(overrides);
    world.stack = await startStack(world.ctx, { workers: options.workers });
    world.org = await organizationWithMastodon(world.ctx, simulator.origin, simulator.addAccount('recovery'));
  });
  afterAll(async () => {
    await world.stack.close();
    await world.ctx.cleanup();
    await simulator.stop();
  });

  async function createPost(content: string, when: 'now' | Date): Promise<string> {
    const response = await api(world.stack.baseUrl, world.org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        ...(when === 'now' ? { type: 'now' } : { type: 'schedule', date: when.toISOString() }),
        posts: [{ integration: { id: world.org.channelId }, value: [{ content }] }],
      },
    });
    expect(response.status).toBe(201);
    return (response.body as { postId: string }[])[0]?.postId ?? '';
  }
  const root = async (postId: string) => world.ctx.db.posts.findById(postId).lean();
  const settled = (postId: string) => waitFor(async () => {
    const post = await root(postId);
    return post?.state === 'PUBLISHED' || post?.state === 'ERROR' ? post : undefined;
  }, { what: `post ${postId} to settle` });
  const statusesOf = (content: string) => simulator.statuses.filter((status) => status.text === content);
  const logged = (message: string, postId: string) =>
    world.ctx.logLines.filter((line) => line.includes(message) && line.includes(postId));
  return { simulator, world, createPost, root, settled, statusesOf, logged };
}

describe('the recovery sweep', () => {
  const { world, createPost, root, settled, statusesOf, logged } = useWorld({
    PUBLISH_SWEEP_EVERY_MS: '300',
    PUBLISH_SWEEP_GRACE_MS: '300',
    LOG_LEVEL: 'info',
  }, { workers: true });
  const inOneHour = () => new Date(Date.now() + 3_600_000);
  // Time passing, as the sweep sees it: the date passes, and the due bucket is that date's hour.
  const makeDue = (postId: string) => {
    const publishDate = new Date(Date.now() - 1_000);
    return world.ctx.db.posts.updateOne({ _id: postId }, { $set: { publishDate, dueHour: hourOf(publishDate) } });
  };
  const jobState = (postId: string) => world.stack.publishQueue.getJobState(publishJobId(postId));

  it('re-queues a due post whose job was lost, and it publishes once', async () => {
    const postId = await createPost('Lost with Redis', inOneHour());
    // What a Redis restart without its data does to a scheduled post: the job is gone, the post stays queued.
    await world.stack.publishQueue.remove(publishJobId(postId));
    await makeDue(postId);

    const post = await settled(postId);
    expect(post).toMatchObject({ state: 'PUBLISHED', publishRecoveries: 1 });
    expect(statusesOf('Lost with Redis')).toHaveLength(1);
    expect(logged('due post had no live job; queued it again', postId)).toHaveLength(1);
  });

  it('re-queues a due post whose job sits in the failed set under the same id', async () => {
    const postId = await createPost('Failed job, queued post', inOneHour());
    await world.stack.publishQueue.remove(publishJobId(postId));
    // A job that ended failed without settling its post (its worker died before it could): BullMQ
    // keeps the id, so adding the post's job again would change nothing without removing it first.
    const broken = { jobId: publishJobId(postId), attempts: 1 };
    await world.stack.publishQueue.add(jobs.publishPost.name, { broken: true }, broken);
    const failed = async () => ((await jobState(postId)) === 'failed' ? true : undefined);
    await waitFor(failed, { what: 'the broken job to fail' });
    expect((await root(postId))?.state).toBe('QUEUE');
    await makeDue(postId);

    const post = await settled(postId);
    expect(post).toMatchObject({ state: 'PUBLISHED', publishRecoveries: 1 });
    expect(statusesOf('Failed job, queued post')).toHaveLength(1);
  });

  it('leaves a due post whose job is still alive as it is', async () => {
    const postId = await createPost('Still has its job', inOneHour());
    const before = await world.stack.publishQueue.getJob(publishJobId(postId));
    await makeDue(postId);
    const sweeps = () => world.ctx.logLines.filter((line) => line.includes('publish sweep done')).length;
    const sweepsBefore = sweeps();
    await waitFor(() => (sweeps() >= sweepsBefore + 3 ? true : undefined), { what: 'three sweeps' });

    const after = await world.stack.publishQueue.getJob(publishJobId(postId));
    expect(after?.timestamp).toBe(before?.timestamp);
    expect(await after?.getState()).toBe('delayed');
    expect(await root(postId)).toMatchObject({ state: 'QUEUE', publishRecoveries: 0 });
    expect(logged('queued it again', postId)).toEqual([]);
    await world.stack.publishQueue.remove(publishJobId(postId));
  });

  it('does not publish a post before its date when its job runs early', async () => {
    const postId = await createPost('Not before its time', inOneHour());
    const publishDate = (await root(postId))?.publishDate.getTime() ?? 0;
    // A job due now for a post due in an hour (a re-queue racing an edit that moved the post).
    await world.stack.publishQueue.remove(publishJobId(postId));
    const payload = { organizationId: world.org.organizationId, postId };
    await world.stack.publishQueue.add(jobs.publishPost.name, payload, { jobId: publishJobId(postId) });

    const job = await waitFor(async () => {
      const candidate = await world.stack.publishQueue.getJob(publishJobId(postId));
      const moved = candidate !== undefined && candidate.delay > 0 && (await candidate.getState()) === 'delayed';
      return moved ? candidate : undefined;
    }, { what: 'the job to move itself back to the post\'s date' });
    expect(Math.abs(job.timestamp + job.delay - publishDate)).toBeLessThan(2_000);
    expect(statusesOf('Not before its time')).toEqual([]);
    await world.stack.publishQueue.remove(publishJobId(postId));
  });
});

describe('a publish job that BullMQ fails after it stalled', () => {
  // The sweep looks only at posts due for an hour: what settles the post here is the failed-job handler.
  const { world, createPost, root, settled, statusesOf, logged } = useWorld({
    PUBLISH_LOCK_DURATION_MS: '1000',
    PUBLISH_STALLED_INTERVAL_MS: '300',
    PUBLISH_MAX_STALLED_COUNT: '0',
    PUBLISH_MAX_RECOVERIES: '1',
    PUBLISH_SWEEP_GRACE_MS: '3600000',
    LOG_LEVEL: 'warn',
  }, { workers: false });
  let workers: RunningWorkers | null = null;
  const workerRedis: ReturnType<typeof createRedis>[] = [];

  afterEach(async () => {
    await workers?.close(2_000);
    workers = null;
  });
  afterAll(async () => {
    await Promise.all(workerRedis.map((redis) => redis.quit()));
  });

  /** A worker takes the post's job and dies with it (its lock is left to expire), as a SIGKILLed process would. */
  async function stallWithJob(postId: string): Promise<void> {
    const connection = createRedis(world.ctx.config.REDIS_URL, 'worker', world.ctx.logger);
    workerRedis.push(connection);
    // It never checks for stalled jobs: a check takes a lock for its interval, which would hold off the workers' own.
    const doomed = new Worker(QueueName.publish, () => new Promise(() => undefined), {
      connection, prefix: world.ctx.config.QUEUE_PREFIX, lockDuration: 1_000, skipStalledCheck: true,
    });
    const state = () => world.stack.publishQueue.getJobState(publishJobId(postId));
    const taken = async () => ((await state()) === 'active' ? true : undefined);
    await waitFor(taken, { what: 'the doomed worker to take the job' });
    await doomed.close(true);
  }
  /** The real workers start once the doomed one holds the job, and stop after each test for the next doomed one. */
  async function startWorkers(): Promise<void> {
    const connection = createRedis(world.ctx.config.REDIS_URL, 'worker', world.ctx.logger);
    workerRedis.push(connection);
    workers = await startConfiguredWorkers(world.ctx.config, world.ctx.db, connection, world.ctx.logger);
  }

  it('re-queues the post, which then publishes once', async () => {
    const postId = await createPost('Outlived its worker', 'now');
    await stallWithJob(postId);
    await startWorkers();

    const post = await settled(postId);
    expect(post).toMatchObject({ state: 'PUBLISHED', publishRecoveries: 1 });
    expect(statusesOf('Outlived its worker')).toHaveLength(1);
    const [line] = logged('job failed, post unsettled; re-queued', postId);
    expect(line).toContain('job stalled more than allowable limit');
  });

  it('fails the post with a notification once its recoveries are spent', async () => {
    const postId = await createPost('Interrupted too often', 'now');
    await world.ctx.db.posts.updateOne({ _id: postId }, { $set: { publishRecoveries: 1 } });
    await stallWithJob(postId);
    await startWorkers();

    const post = await settled(postId);
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/^publishing was interrupted 2 times before it could finish/);
    expect(statusesOf('Interrupted too often')).toEqual([]);
    const notifications = await world.ctx.db.notifications.find({ organizationId: world.org.organizationId }).lean();
    const told = notifications.map((notification) => notification.content);
    const said = `Your post could not be published on Mastodon (publishing was interrupted): ${post.error ?? ''}`;
    expect(told).toContain(said);
    const failed = await root(postId);
    expect(failed?.publishRecoveries).toBe(1);
    expect(failed?.failureCategory).toBe('interrupted');
    expect(failed?.attempts.map((attempt) => attempt.category)).toEqual(['interrupted']);
  });
});
