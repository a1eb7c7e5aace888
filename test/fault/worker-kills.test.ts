import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { api, organizationWithMastodon } from '../support/fixtures.ts';
import { startService, type ServiceProcess } from '../support/processes.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { threadOutcomes, type ThreadOutcome } from './thread-outcomes.ts';

interface WorkerProcess {
  process: ServiceProcess;
  ready: boolean;
}

/**
 * Publish workers run as their own processes (workers/main.ts); the api runs in this process.
 * Two workers share the work, then workers are killed with SIGKILL while threads publish to the
 * Mastodon simulator. Every part must reach Mastodon exactly once and every post must end
 * PUBLISHED, or ERROR with a notification.
 */
describe('publish worker processes sharing the work, and killed with SIGKILL while threads publish', () => {
  const simulator = new MastodonSimulator();
  let ctx: TestContext;
  let stack: RunningStack;
  let org: { apiKey: string; organizationId: string; channelId: string };
  /** The organization's channels, threads going to each in turn: a worker calls an account once at a time. */
  const channelIds: string[] = [];
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    await simulator.start();
    ctx = await createTestContext({
      // A killed worker's job is taken over once its lock expires: short here, so the test is short.
      PUBLISH_LOCK_DURATION_MS: '1500',
      PUBLISH_STALLED_INTERVAL_MS: '500',
      // Few jobs per worker, so both workers of the sharing test get some.
      PUBLISH_CONCURRENCY: '3',
      PUBLISH_BACKOFF_MS: '100',
      PUBLISH_SWEEP_EVERY_MS: '1000',
      PUBLISH_SWEEP_GRACE_MS: '2000',
      WORKER_QUEUES: 'publish,maintenance',
    });
    stack = await startStack(ctx, { workers: false });
    org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('kills'));
    channelIds.push(org.channelId);
    for (const account of ['kills-2', 'kills-3']) {
      const added = await addTokenChannel(ctx.db, ctx.secrets, { allowPrivateNetwork: true }, {
        organizationId: org.organizationId, provider: 'mastodon', name: account,
        instanceUrl: simulator.origin, token: simulator.addAccount(account),
      });
      channelIds.push(added.id);
    }
    // Each status takes the platform 300 ms, so every publish is in flight for a while.
    simulator.failNext(...Array.from({ length: 500 }, () => ({ delayMs: 300 })));
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.process.stop('SIGKILL')));
    await stack.close();
    await ctx.cleanup();
    await simulator.stop();
  });

  function startWorker(): void {
    // The workers log at info level: their "listening" line says they are ready.
    const process = startService('workers/main.ts', { ...ctx.env, LOG_LEVEL: 'info' });
    const worker: WorkerProcess = { process, ready: false };
    workers.push(worker);
    worker.process.waitForOutput(/"event":"service\.listening"/, 60_000).then(
      () => { worker.ready = true; },
      // Killed before it was ready: part of the test, not a failure.
      () => { worker.ready = false; },
    );
  }
  const alive = () => workers.filter(({ process: { child } }) => child.exitCode === null && child.signalCode === null);
  const readyWorkers = () => alive().filter((worker) => worker.ready);
  const postsPublishedBy = (worker: WorkerProcess) =>
    worker.process.output().split('\n').filter((line) => line.includes('"event":"post.published"')).length;

  let threadsMade = 0;
  async function createThread(label: string): Promise<{ postId: string; parts: string[] }> {
    const parts = [1, 2, 3].map((index) => `${label} part ${index}/3`);
    const channelId = channelIds[threadsMade % channelIds.length] ?? org.channelId;
    threadsMade += 1;
    const response = await api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'now',
        posts: [{ integration: { id: channelId }, value: parts.map((content) => ({ content })) }],
      },
    });
    expect(response.status).toBe(201);
    return { postId: (response.body as { postId: string }[])[0]?.postId ?? '', parts };
  }
  const settledAll = (threads: { postId: string; parts: string[] }[], what: string) => waitFor(async () => {
    const current = await threadOutcomes(ctx, simulator, org.organizationId, threads);
    return current.every((outcome) => outcome.settled) ? current : undefined;
  }, { timeoutMs: 60_000, what });
  const problems = (outcomes: ThreadOutcome[]) => outcomes
    .filter((outcome) => !outcome.consistent)
    .map(({ postId, state, problem, failure }) => ({ postId, state, problem, failure }));

  it('two worker processes on the same queues share the work, with no duplicate', { timeout: 90_000 }, async () => {
    startWorker();
    startWorker();
    const bothReady = () => (readyWorkers().length === 2 ? true : undefined);
    await waitFor(bothReady, { timeoutMs: 60_000, what: 'two workers to start' });

    const threads = await Promise.all(Array.from({ length: 10 }, (_, index) => createThread(`shared ${index}`)));
    const outcomes = await settledAll(threads, 'every shared post to settle');

    const perWorker = workers.map(postsPublishedBy);
    const duplicates = outcomes.reduce((total, outcome) => total + outcome.duplicates, 0);
    process.stderr.write(`[fault: two workers] posts=${threads.length} published per worker=${perWorker.join('+')} `
      + `duplicates=${duplicates}\n`);
    expect(problems(outcomes)).toEqual([]);
    expect(outcomes.every((outcome) => outcome.state === 'PUBLISHED')).toBe(true);
    expect(perWorker.every((count) => count > 0)).toBe(true);
    expect(perWorker.reduce((total, count) => total + count, 0)).toBe(threads.length);
  });

  it('publishes every part exactly once and settles every post', { timeout: 120_000 }, async () => {
    // The two workers of the test above are running; a new one starts for each one killed.
    const anyReady = () => (readyWorkers().length > 0 ? true : undefined);
    await waitFor(anyReady, { timeoutMs: 60_000, what: 'a worker to start' });

    const threads = await Promise.all(['t0', 't1', 't2', 't3'].map(createThread));
    const targetKills = 10;
    let kills = 0;
    let requestsSeen = simulator.statusesCreatedRequests().length;
    while (kills < targetKills) {
      // Kill as the platform receives a status: a worker dies with the call in flight (the status
      // is then created with nobody to read the answer).
      const victim = await waitFor(() => {
        if (simulator.statusesCreatedRequests().length === requestsSeen) return undefined;
        return readyWorkers()[0];
      }, { timeoutMs: 60_000, what: `kill ${kills + 1}: a status in flight and a ready worker` });
      requestsSeen = simulator.statusesCreatedRequests().length;
      victim.process.child.kill('SIGKILL');
      kills += 1;
      startWorker();
      threads.push(...await Promise.all([createThread(`k${kills}a`), createThread(`k${kills}b`)]));
    }
    const outcomes = await settledAll(threads, 'every post to settle after the kills');

    const parts = threads.flatMap((thread) => thread.parts);
    const duplicates = outcomes.reduce((total, outcome) => total + outcome.duplicates, 0);
    // Parts sent more than once, always with the one key: the kills did land on calls in flight.
    const resent = parts.filter((text) => {
      const keys = simulator.idempotencyKeysFor(text);
      return keys.length > 1 && new Set(keys).size === 1;
    }).length;
    const published = outcomes.filter((outcome) => outcome.state === 'PUBLISHED').length;
    process.stderr.write(`[fault: worker kills] kills=${kills} posts=${outcomes.length} published=${published} `
      + `failed=${outcomes.length - published} parts=${parts.length} duplicates=${duplicates} `
      + `parts sent again with the same Idempotency-Key=${resent}\n`);
    for (const text of parts) {
      const statuses = simulator.statuses.filter((status) => status.text === text);
      if (statuses.length > 1) {
        const keys = JSON.stringify(simulator.idempotencyKeysFor(text));
        const ids = statuses.map((status) => status.id).join(',');
        process.stderr.write(`[fault: duplicate] ${text}: statuses ${ids} keys ${keys}\n`);
      }
    }
    expect(kills).toBeGreaterThanOrEqual(targetKills);
    expect(duplicates).toBe(0);
    expect(problems(outcomes)).toEqual([]);
  });
});
