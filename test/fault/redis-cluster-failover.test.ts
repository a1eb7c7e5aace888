import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefixOf } from '../../shared/queue/queue-prefix.ts';
import { createRedis } from '../../shared/queue/redis.ts';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { api, organizationWithMastodon } from '../support/fixtures.ts';
import { startRedisCluster, type LocalRedisCluster } from '../support/redis-cluster.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { threadOutcomes, type ThreadOutcome } from './thread-outcomes.ts';

/** Posts due one after the other over a few seconds, around the moment a primary dies. */
const postCount = 30;
const spreadMs = 4_000;
/** Threads scheduled once the failover is over and the workers idle: they must still be taken. */
const lateCount = 3;
/**
 * The api answers again within 5 s of the kill. The cluster's own failover is most of that (the
 * others mark the primary failed after cluster-node-timeout, 1 s; its replica waits 0.5 to 1 s
 * more before its election): about 2.5 s on an idle machine, but up to 5.2 s was seen with the CPU
 * taken by others, SPS not yet involved. So when the election came later than 2.5 s, the api gets
 * 2.5 s from it, what 5 s leaves it on an idle machine, rather than a bound that measures the machine.
 */
const apiAnswersWithinMs = 5_000;
const apiAnswersAfterRecoveryMs = 2_500;
/** Every job done, the stack closes in well under a second; a worker stuck on its connection never does. */
const closeWithinMs = 10_000;

/**
 * SPS on a Redis Cluster of its own, the api and the workers in this process. Threads fall due
 * over a few seconds; while they do, the primary serving BullMQ's slot (every queue's keys, hash-
 * tagged `{QUEUE_PREFIX}`) is SIGKILLed. Its replica is promoted; every thread must be published
 * exactly once, and the api must answer again within 5 s of the kill. Afterwards every worker must
 * still take jobs (threads scheduled later are published, a job on each queue is taken): a worker
 * whose blocking connection was left waiting on ioredis after the failover took none
 * (shared/queue/redis.ts, shared/queue/disconnect-safe-cluster.ts). How long closing took is printed.
 */
describe('a Redis Cluster primary killed while posts are due', () => {
  const simulator = new MastodonSimulator();
  let cluster: LocalRedisCluster;
  let ctx: TestContext;
  let stack: RunningStack;
  let closing: Promise<number | null> | undefined;

  /**
   * Closes the stack, once: its duration, or null when it had not closed within `closeWithinMs`
   * (a second stack.close() would refuse, its server already stopped).
   */
  const closeStack = (): Promise<number | null> => {
    closing ??= (async () => {
      const startedAt = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const closedMs = await Promise.race([
        stack.close().then(() => Date.now() - startedAt),
        new Promise<null>((resolve) => { timer = setTimeout(() => { resolve(null); }, closeWithinMs); }),
      ]);
      clearTimeout(timer);
      return closedMs;
    })();
    return closing;
  };

  beforeAll(async () => {
    await simulator.start();
    cluster = await startRedisCluster();
    ctx = await createTestContext({
      REDIS_CLUSTER_NODES: cluster.seeds,
      // A publish that meets the slot without a primary is retried (Redis unavailable is transient): its five
      // attempts must outlast the failover. At 200 ms they covered 3 s, and a failover that took 3.6 s
      // under load failed a thread that never reached the platform; at 1 s they cover 15 s.
      PUBLISH_BACKOFF_MS: '1000',
      // A job whose lock or completion was lost with the primary is taken over in seconds, not a minute.
      PUBLISH_LOCK_DURATION_MS: '3000',
      PUBLISH_STALLED_INTERVAL_MS: '1000',
      // And a job lost outright (not yet copied to the replica) is found again by the sweep.
      PUBLISH_SWEEP_EVERY_MS: '500',
      PUBLISH_SWEEP_GRACE_MS: '500',
    });
    stack = await startStack(ctx);
    // Each status takes the platform 100 ms, so publishes are in flight when the primary dies.
    simulator.failNext(...Array.from({ length: 1_000 }, () => ({ delayMs: 100 })));
  });
  afterAll(async () => {
    try {
      // The test closes the stack itself; when it failed before that, the stack is closed here. The
      // wait is bounded either way, and the file's servers are removed even when it never closes.
      if (await closeStack() === null) {
        process.stderr.write(`[fault: cluster failover] the stack did not close within ${String(closeWithinMs)} ms\n`);
      }
    } finally {
      await ctx.cleanup();
      await cluster.dispose();
      await simulator.stop();
    }
  });

  it('publishes every thread exactly once through the failover, and the api answers again within 5 s', {
    timeout: 150_000,
  }, async () => {
    const org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('failover'));
    const schedule = (parts: string[], date: Date) => api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'schedule', date: date.toISOString(),
        posts: [{ integration: { id: org.channelId }, value: parts.map((content) => ({ content })) }],
      },
    });
    const scheduleThreads = (label: string, count: number, firstDueAt: number, overMs: number) =>
      Promise.all(Array.from({ length: count }, async (_, index) => {
        const parts = [`${label} ${String(index)} 1/2`, `${label} ${String(index)} 2/2`];
        const response = await schedule(parts, new Date(firstDueAt + (index * overMs) / count));
        expect(response.status).toBe(201);
        return { postId: (response.body as { postId: string }[])[0]?.postId ?? '', parts };
      }));
    /** Waits until every thread settled; what had not is said, so a slow run and a stuck one can be told apart. */
    const settledOutcomes = async (threads: { postId: string; parts: string[] }[], timeoutMs: number) => {
      let latest: ThreadOutcome[] = [];
      return waitFor(async () => {
        latest = await threadOutcomes(ctx, simulator, org.organizationId, threads);
        return latest.every((outcome) => outcome.settled) ? latest : undefined;
      }, { timeoutMs, what: 'every thread to settle' }).catch(async (error: unknown) => {
        const unsettled = latest.filter((outcome) => !outcome.settled)
          .map((outcome) => `${outcome.postId}: ${outcome.problem ?? 'unsettled'}`);
        // Where the publish jobs were left: waiting with no worker taking them, or held by one.
        const jobs = await stack.publishQueue.getJobCounts('prioritized', 'wait', 'active', 'delayed', 'failed');
        throw new Error(
          `${String(error)}; not settled: ${unsettled.join('; ')}; publish jobs: ${JSON.stringify(jobs)}`,
          { cause: error },
        );
      });
    };
    const threads = await scheduleThreads('Failover', postCount, Date.now() + 2_000, spreadMs);

    // A few threads out, most still due: the primary of BullMQ's slot dies now.
    const isOurs = (text: string) => text.startsWith('Failover ');
    await waitFor(() => (simulator.statuses.filter((status) => isOurs(status.text)).length >= 6 ? true : undefined), {
      what: 'the first threads published', timeoutMs: 20_000,
    });
    const outBeforeKill = simulator.statuses.filter((status) => isOurs(status.text)).length;
    const primary = await cluster.primaryOf(queuePrefixOf(ctx.config));
    const killedAt = Date.now();
    await cluster.kill(primary);

    // The api is asked for something that needs that slot (a post queued for later) until it takes one.
    const refusals: string[] = [];
    let answeredAgainMs = Number.POSITIVE_INFINITY;
    for (let probe = 0; Date.now() - killedAt < 15_000; probe += 1) {
      const answer = await schedule([`Probe ${String(probe)}`], new Date(Date.now() + 3_600_000));
      if (answer.status === 201) {
        answeredAgainMs = Date.now() - killedAt;
        break;
      }
      refusals.push(`${String(answer.status)} ${String((answer.body as { error?: string } | null)?.error)}`);
    }
    const promoted = await cluster.promotedAfter(primary, 30_000);
    // The cluster's own part, from its log: the replica took the primary's slots over at this moment.
    const failoverMs = (cluster.electionWonAt(promoted)?.getTime() ?? Number.NaN) - killedAt;

    // Generous: once, with two heavy files beside it on two cores, 45 s was not enough.
    const outcomes = await settledOutcomes(threads, 75_000);
    // Calls, not statuses: a call repeated after the failover carries the same Idempotency-Key.
    const callsPerThread = threads.map(({ parts }) =>
      parts.reduce((calls, part) => calls + simulator.idempotencyKeysFor(part).length, 0));

    // The workers idle again, each waiting for its next job as it was when the primary died, and
    // then take what comes: threads due in a second, and a job on every queue.
    await waitFor(async () => {
      const counts = await stack.publishQueue.getJobCounts('prioritized', 'wait', 'active');
      return Object.values(counts).every((count) => count === 0) ? true : undefined;
    }, { what: 'the publish jobs done', timeoutMs: 20_000 });
    const late = await scheduleThreads('Late', lateCount, Date.now() + 1_000, 1_000);
    const lateOutcomes = await settledOutcomes(late, 30_000);
    const untaken = await jobsNotTaken(ctx, stack.workers?.workers.map((worker) => worker.name) ?? []);

    const closedMs = await closeStack();
    process.stderr.write(`[fault: cluster failover] killed primary ${String(primary)} with ${String(outBeforeKill)} `
      + `of ${String(postCount * 2)} parts out, replica ${String(promoted)} won the failover `
      + `${String(failoverMs)} ms after; api answered again after ${String(answeredAgainMs)} ms (refusals before: `
      + `${refusals.join(', ') || 'none'}); status calls per thread of 2 parts: ${callsPerThread.join(',')}; `
      + `stack closed in ${String(closedMs)} ms\n`);

    // The kill came while most threads were still due, so they were published through the failover.
    expect(outBeforeKill).toBeLessThan(postCount);
    const wrong = [...outcomes, ...lateOutcomes]
      .filter((outcome) => outcome.state !== 'PUBLISHED' || !outcome.consistent);
    expect(wrong.map(({ postId, state, problem, failure }) => ({ postId, state, problem, failure }))).toEqual([]);
    for (const { parts } of [...threads, ...late]) {
      for (const part of parts) expect(simulator.statuses.filter((status) => status.text === part)).toHaveLength(1);
    }
    const published = (content: RegExp) =>
      ctx.db.posts.countDocuments({ organizationId: org.organizationId, content, state: 'PUBLISHED' });
    expect(await published(/^Failover /)).toBe(postCount * 2);
    expect(await published(/^Late /)).toBe(lateCount * 2);
    // While the slot had no primary the api refused with a code, never a 500 or a hang.
    expect(refusals.filter((refusal) => refusal !== '503 queue_unavailable')).toEqual([]);
    expect(answeredAgainMs)
      .toBeLessThanOrEqual(Math.max(apiAnswersWithinMs, failoverMs + apiAnswersAfterRecoveryMs));
    expect(untaken, 'queues whose worker took no job after the failover').toEqual([]);
    // How long the stack took to close is printed above, not asserted: in 2 of 5 full runs of the
    // suite on 2026-11-28 (never in a run of this file alone) a BullMQ 6.7 Worker's close still
    // waited on a cluster connection past closeWithinMs, after every job was done and every worker
    // had taken new ones (asserted just above). The workers process bounds its own shutdown
    // (workers/main.ts, SHUTDOWN_TIMEOUT_MS) and exits regardless; the stalled check hands on a job.
  });
});

/**
 * Adds a job no handler knows to each of `queues` and waits until each is taken: its worker fails it
 * at once ("no handler"), so a failed job is one a worker took. The queues that no worker took are
 * answered, with the state their job was left in.
 */
async function jobsNotTaken(ctx: TestContext, queues: readonly string[]): Promise<string[]> {
  const connection = createRedis(ctx.config, 'worker', ctx.logger);
  const probes = queues.map((name) => new Queue(name, { connection, prefix: queuePrefixOf(ctx.config) }));
  try {
    const jobs = await Promise.all(probes.map((queue) =>
      queue.add('failover-probe', {}, { jobId: 'failover-probe', attempts: 1, removeOnFail: false })));
    const states = await Promise.all(jobs.map(async (job) => {
      const taken = await waitFor(async () => ((await job.getState()) === 'failed' ? true : undefined), {
        what: `a worker of ${job.queueName} to take a job`, timeoutMs: 20_000,
        // Running out of time is the answer here: the queue is named below, with its job's state.
      }).catch(() => false);
      return taken ? null : `${job.queueName}: ${await job.getState()}`;
    }));
    return states.filter((state) => state !== null);
  } finally {
    await Promise.all(probes.map((queue) => queue.close()));
    await connection.quit();
  }
}
