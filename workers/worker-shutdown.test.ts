import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { queuePrefixOf } from '../shared/queue/queue-prefix.ts';
import { QueueName } from '../shared/queue/queues.ts';
import { createRedis } from '../shared/queue/redis.ts';
import { api, organizationWithMastodon } from '../test/support/fixtures.ts';
import { startService, type ServiceProcess } from '../test/support/processes.ts';
import { useSimulatedStack } from '../test/support/simulated-stack.ts';
import { waitFor } from '../test/support/stack.ts';

// The api runs in this process; the worker is workers/main.ts in a process of its own, stopped with SIGTERM.
const world = useSimulatedStack({ workers: false });

describe('a publish worker stopped with SIGTERM', () => {
  let worker: ServiceProcess | null = null;
  afterAll(async () => { await worker?.stop('SIGKILL'); });

  it('lets the publish in progress finish, even past SHUTDOWN_TIMEOUT_MS', { timeout: 60_000 }, async () => {
    const { simulator } = world;
    const org = await organizationWithMastodon(world.ctx, simulator.origin, simulator.addAccount('shutdown'));
    worker = startService('workers/main.ts', {
      ...world.ctx.env,
      WORKER_QUEUES: 'publish',
      LOG_LEVEL: 'info',
      // Other jobs get 1.4 s; a publish gets its own grace (a video upload can take minutes).
      SHUTDOWN_TIMEOUT_MS: '2000',
      PUBLISH_SHUTDOWN_GRACE_MS: '20000',
    });
    await worker.waitForOutput(/"event":"service\.listening"/, 60_000);
    // The platform takes 4 s to answer: longer than SHUTDOWN_TIMEOUT_MS.
    simulator.failNext({ delayMs: 4_000 });
    const response = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: org.channelId }, value: [{ content: 'Done before exit' }] }] },
    });
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    const reached = () => (simulator.statusesCreatedRequests().length > 0 ? true : undefined);
    await waitFor(reached, { what: 'the status request to reach the platform' });

    const code = await worker.stop('SIGTERM');
    expect(code).toBe(0);
    const post = await world.ctx.db.posts.findById(postId).lean();
    expect(post?.state).toBe('PUBLISHED');
    expect(simulator.statuses.filter((status) => status.text === 'Done before exit')).toHaveLength(1);
    const output = worker.output();
    expect(output.indexOf('"event":"post.published"')).toBeGreaterThan(output.indexOf('"event":"service.stopping"'));
    expect(output).not.toContain('handing them back');
  });

  it('hands back a publish still running at its deadline and exits cleanly, not at the hard deadline', {
    timeout: 60_000,
  }, async () => {
    const { simulator } = world;
    const org = await organizationWithMastodon(world.ctx, simulator.origin, simulator.addAccount('deadline'));
    worker = startService('workers/main.ts', {
      ...world.ctx.env,
      WORKER_QUEUES: 'publish',
      LOG_LEVEL: 'info',
      // The publish gets 2 s; the process exits by force 0.6 s after that (30 % of SHUTDOWN_TIMEOUT_MS).
      SHUTDOWN_TIMEOUT_MS: '2000',
      PUBLISH_SHUTDOWN_GRACE_MS: '2000',
    });
    await worker.waitForOutput(/"event":"service\.listening"/, 60_000);
    simulator.failNext({ delayMs: 15_000 });
    const response = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: org.channelId }, value: [{ content: 'Handed back' }] }] },
    });
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    const reached = () => (simulator.idempotencyKeysFor('Handed back').length > 0 ? true : undefined);
    await waitFor(reached, { what: 'the status request to reach the platform' });

    const code = await worker.stop('SIGTERM');
    const output = worker.output();
    expect(output).toContain('handing them back');
    expect(output).not.toContain('shutdown deadline passed');
    expect(code).toBe(0);
    // Left active with a lock no one renews: another worker's stalled check takes it over.
    const connection = createRedis(world.ctx.config, 'producer', world.ctx.logger);
    const queue = new Queue(QueueName.publish, { connection, prefix: queuePrefixOf(world.ctx.config) });
    try {
      const [job] = (await queue.getActive()).filter((active) => (active.data as { postId?: string }).postId === postId);
      expect(job).toBeDefined();
    } finally {
      await queue.close();
      await connection.quit();
    }
  });
});
