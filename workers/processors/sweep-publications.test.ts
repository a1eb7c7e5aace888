import { Job, Queue } from 'bullmq';
import { Types } from 'mongoose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { dueHourOf, hourOf } from '../../shared/domain/posts/due-bucket.ts';
import { postDocuments } from '../../shared/domain/posts/post-documents.ts';
import { savePublishedPart } from '../../shared/domain/publishing/publish-store.ts';
import { SpsMetrics } from '../../shared/metrics/sps-metrics.ts';
import { queuePrefixOf } from '../../shared/queue/queue-prefix.ts';
import { jobs, publishJobId, QueueName } from '../../shared/queue/queues.ts';
import { createRedis } from '../../shared/queue/redis.ts';
import { waitFor } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';
import { JobContext } from '../job-context.ts';
import { jobHandlers } from '../job-handlers.ts';
import { createWorkerDeps, type WorkerDeps } from '../worker-deps.ts';
import { sweepFromHour } from './sweep-publications.ts';

const hourMs = 3_600_000;
/**
 * The sweep's clock: the real one moved to half past an hour, so that no test crosses into the
 * next hour, whose bucket a sweep reads only once it is past the grace.
 */
const shiftMs = (((30 * 60_000) - (Date.now() % hourMs)) + hourMs) % hourMs;
const clock = () => new Date(Date.now() + shiftMs);
const fromNow = (ms: number) => new Date(clock().getTime() + ms);
const summary = z.object({ checked: z.number(), requeued: z.number(), failed: z.number(), errors: z.number() });
/** The PostgreSQL database under the suite's FerretDB; empty when the suite runs on another server. */
const postgresUrl = inject('ferretdbPostgresUrl');

describe('the oldest due bucket a sweep reads', () => {
  it('is none (every queued post) on a process\'s first sweep', () => {
    expect(sweepFromHour(null, 500_000, 24)).toBeNull();
  });

  it('goes back the look-back from the cutoff\'s hour, or to the last sweep\'s when sweeps stopped longer', () => {
    expect(sweepFromHour(500_000, 500_000, 24)).toBe(499_976);
    expect(sweepFromHour(499_999, 500_000, 0)).toBe(499_999);
    // Three days without a sweep (Redis away): every hour since the last one is read.
    expect(sweepFromHour(499_928, 500_000, 24)).toBe(499_928);
  });
});

describe('the publication sweep, as the workers run it, on the suite\'s database', () => {
  let ctx: TestContext;
  let connection: ReturnType<typeof createRedis>;
  let deps: WorkerDeps;
  let context: JobContext;
  let publishQueue: Queue;
  const organizationId = new Types.ObjectId();
  const channelId = new Types.ObjectId();

  beforeAll(async () => {
    ctx = await createTestContext();
    // Indexes first, so their builds are not counted as reads below.
    await ctx.db.posts.createIndexes();
    connection = createRedis(ctx.config, 'worker', ctx.logger);
    const metrics = new SpsMetrics('workers');
    deps = { ...(await createWorkerDeps(ctx.config, ctx.db, connection, ctx.logger, metrics, {})), now: clock };
    context = new JobContext({
      deps, config: ctx.config, connection, logger: ctx.logger, metrics, jobOptionsOf: () => undefined,
    });
    publishQueue = new Queue(QueueName.publish, { connection, prefix: queuePrefixOf(ctx.config) });
  });
  afterAll(async () => {
    await publishQueue.close();
    await context.close();
    await deps.deliveryJobs.close();
    await connection.quit();
    await ctx.cleanup();
  });

  /** The sweep's processor as one worker process makes it (job-handlers.ts): each call is a new process. */
  function startProcess(): () => Promise<z.infer<typeof summary>> {
    const handler = jobHandlers.find((candidate) => candidate.job === jobs.sweepPublications);
    if (handler === undefined) throw new Error('no handler for the sweep');
    const processor = handler.create(context);
    const maintenance = context.queue(QueueName.maintenance);
    return async () => summary.parse(await processor(new Job(maintenance, jobs.sweepPublications.name, {})));
  }

  /** A queued post of `parts` parts as POST /posts writes it (post-documents.ts) at `writtenAt`, never given a job. */
  function queuedParts(publishDate: Date, writtenAt: Date, parts: number) {
    const fields = {
      organizationId, channelId, group: 'sweep', settings: {}, tags: [], publishDate,
      dueHour: dueHourOf(publishDate, writtenAt), state: 'QUEUE' as const,
    };
    const value = Array.from({ length: parts }, (_, index) => ({ content: `part ${String(index)}`, image: [] }));
    return postDocuments({ integration: { id: channelId.toString() }, value },
      new Types.ObjectId(), fields, () => new Types.ObjectId(), writtenAt);
  }

  /** Queued posts of one part, one per date; answers their ids. */
  async function queuePosts(dates: Date[], writtenAt = clock()): Promise<Types.ObjectId[]> {
    const documents = dates.map((publishDate) => {
      const [root] = queuedParts(publishDate, writtenAt, 1);
      if (root === undefined) throw new Error('a post has a root');
      return root;
    });
    await ctx.db.posts.collection.insertMany(documents);
    return documents.map((document) => document._id);
  }

  const jobOf = (postId: Types.ObjectId) => publishQueue.getJob(publishJobId(postId.toString()));
  const recoveriesOf = async (postId: Types.ObjectId) =>
    (await ctx.db.posts.findById(postId).lean())?.publishRecoveries;
  /** A job lost again, as Redis losing its data does. */
  const loseJob = async (postId: Types.ObjectId) => {
    expect(await publishQueue.remove(publishJobId(postId.toString()))).toBe(1);
  };

  describe.skipIf(postgresUrl === '')('rows read on FerretDB\'s PostgreSQL', () => {
    let client: pg.Client;
    beforeAll(async () => {
      client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
    });
    afterAll(async () => {
      await client.end();
    });

    /** Rows PostgreSQL has read from this file's posts table, by sequential scans and through indexes. */
    async function rowsRead(): Promise<number> {
      const result = await client.query<{ rows: string }>(
        `SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0) AS rows FROM pg_stat_user_tables
         WHERE schemaname = $1 AND relname LIKE 'posts%'`,
        [ctx.db.connection.name],
      );
      return Number(result.rows[0]?.rows ?? 0);
    }
    /**
     * The count once FerretDB's backends have published their statistics. A backend publishes them
     * when it goes idle, but at most once a second: what it read within a second of its last report
     * waits for its idle timer, 10 s (PGSTAT_IDLE_INTERVAL). So the count is taken once it held 11 s.
     */
    async function settledRowsRead(): Promise<number> {
      let last = await rowsRead();
      return waitFor(async () => {
        await new Promise((resolve) => setTimeout(resolve, 11_000));
        const now = await rowsRead();
        const settled = now === last ? now : undefined;
        last = now;
        return settled;
      }, { timeoutMs: 60_000, what: 'PostgreSQL\'s statistics to settle' });
    }

    it('reads the schedule once when the process starts, then only the posts due in its look-back', async () => {
      const schedule = 1_000;
      await queuePosts(Array.from({ length: schedule }, (_, index) => fromNow(30 * hourMs + index * 60_000)));
      // Queued yesterday for a minute ago, its job lost: the sweep's grace (30 s) is over.
      const [lost] = await queuePosts([fromNow(-60_000)], fromNow(-24 * hourMs));
      if (lost === undefined) throw new Error('the lost post was written');
      const sweep = startProcess();

      const beforeFirst = await settledRowsRead();
      expect(await sweep()).toMatchObject({ requeued: 1, errors: 0 });
      const afterFirst = await settledRowsRead();
      // The first sweep of a process reads every queued post, the whole future schedule.
      expect(afterFirst - beforeFirst).toBeGreaterThanOrEqual(schedule);

      // Redis alone until the second sweep (each settled count waits 11 s or more): afterFirst still holds.
      expect(await jobOf(lost)).toBeDefined();
      await loseJob(lost);
      expect(await sweep()).toMatchObject({ requeued: 1, errors: 0 });
      const secondRead = (await settledRowsRead()) - afterFirst;
      expect(await jobOf(lost)).toBeDefined();
      expect(await recoveriesOf(lost)).toBe(2);
      // The minute's sweep: the lost post and its recovery (by _id), none of tomorrow's posts
      // (measured: 5 rows, and 2,006 for the first sweep; docs/queries.md).
      expect(secondRead).toBeLessThanOrEqual(10);
    }, 180_000);
  });

  it('gives a thread its recoveries afresh once a part was published since the last one', async () => {
    const parts = queuedParts(fromNow(-60_000), fromNow(-24 * hourMs), 3);
    await ctx.db.posts.collection.insertMany(parts);
    const [root, second] = parts.map((part) => part._id);
    if (root === undefined || second === undefined) throw new Error('the thread was written');
    const { PUBLISH_MAX_RECOVERIES: spent } = ctx.config;
    const publish = (partId: Types.ObjectId) => savePublishedPart(ctx.db, partId,
      { releaseId: `status-${partId.toString()}`, releaseURL: `https://example.social/${partId.toString()}` }, clock());
    // Its recoveries spent while its first part was in flight, which then landed.
    await ctx.db.posts.updateOne({ _id: root }, { $set: { publishRecoveries: spent } });
    await publish(root);
    const sweep = startProcess();

    expect(await sweep()).toMatchObject({ requeued: 1, failed: 0 });
    const recovered = await ctx.db.posts.findById(root).lean();
    expect(recovered).toMatchObject({ publishRecoveries: 1, partsPublishedAtRecovery: 1 });

    // The second part lands too: progress again. Then its job is lost with no part published since.
    await loseJob(root);
    await publish(second);
    expect(await sweep()).toMatchObject({ requeued: 1, failed: 0 });
    for (let recovery = 2; recovery <= spent; recovery += 1) {
      await loseJob(root);
      expect(await sweep()).toMatchObject({ requeued: 1, failed: 0 });
    }
    expect(await recoveriesOf(root)).toBe(spent);
    await loseJob(root);
    expect(await sweep()).toMatchObject({ requeued: 0, failed: 1 });
    const third = await ctx.db.posts.findOne({ rootPostId: root, position: 2 }).lean();
    expect(third).toMatchObject({ state: 'ERROR', failureCategory: 'interrupted' });
  });

  it('gives queued posts stored without a bucket one on a process\'s first sweep', async () => {
    const [future, overdue] = await queuePosts([fromNow(5 * hourMs), fromNow(-72 * hourMs)]);
    if (future === undefined || overdue === undefined) throw new Error('both posts were written');
    // As stored before the field existed.
    await ctx.db.posts.collection.updateMany({ _id: { $in: [future, overdue] } }, { $unset: { dueHour: '' } });

    const requeued = await startProcess()();
    expect(requeued.errors).toBe(0);
    expect(await jobOf(overdue)).toBeDefined();
    const stored = async (postId: Types.ObjectId) => ctx.db.posts.findById(postId).lean();
    const futurePost = await stored(future);
    expect(futurePost?.dueHour).toBe(hourOf(futurePost?.publishDate ?? new Date(0)));
    // Re-queued now, so in this hour's bucket rather than its date's, three days back.
    expect((await stored(overdue))?.dueHour).toBe(hourOf(clock()));
  });

  it('finds a post re-queued long after its date again when that job is lost too', async () => {
    const [late] = await queuePosts([fromNow(-72 * hourMs)], fromNow(-73 * hourMs));
    if (late === undefined) throw new Error('the post was written');
    const sweep = startProcess();
    await sweep();
    expect(await recoveriesOf(late)).toBe(1);

    await loseJob(late);
    await sweep();
    expect(await recoveriesOf(late)).toBe(2);
    expect(await jobOf(late)).toBeDefined();
  });

  it('leaves a job lost more than the look-back after its date to the next process\'s first sweep', async () => {
    const sweep = startProcess();
    await sweep();
    // Queued the day before yesterday for 30 hours ago; its job lived past its date (a backlog), then was lost.
    const [stale] = await queuePosts([fromNow(-30 * hourMs)], fromNow(-48 * hourMs));
    if (stale === undefined) throw new Error('the post was written');

    await sweep();
    expect(await jobOf(stale)).toBeUndefined();
    await startProcess()();
    expect(await jobOf(stale)).toBeDefined();
    expect(await recoveriesOf(stale)).toBe(1);
  });
});
