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

  /**
   * A publish worker (SHUTDOWN_TIMEOUT_MS 2 s: other jobs get 1.4 s, the process is cut 0.6 s after
   * the publishes' grace), then a post of `text` published now whose status the platform answers
   * after `platformMs`; resolves with the post's id once the request reached the platform.
   */
  async function publishingWhenStopped(
    text: string, publishGraceMs: number, platformMs: number,
  ): Promise<{ running: ServiceProcess; postId: string }> {
    const { simulator } = world;
    const account = text.toLowerCase().replace(/[^a-z]+/g, '_');
    const org = await organizationWithMastodon(world.ctx, simulator.origin, simulator.addAccount(account));
    const running = startService('workers/main.ts', {
      ...world.ctx.env, WORKER_QUEUES: 'publish', LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '2000', PUBLISH_SHUTDOWN_GRACE_MS: String(publishGraceMs),
    });
    worker = running;
    await running.waitForOutput(/"event":"service\.listening"/, 60_000);
    simulator.failNext({ delayMs: platformMs });
    const response = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: org.channelId }, value: [{ content: text }] }] },
    });
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    const reached = () => (simulator.idempotencyKeysFor(text).length > 0 ? true : undefined);
    await waitFor(reached, { what: 'the status request to reach the platform' });
    return { running, postId };
  }

  it('lets the publish in progress finish, even past SHUTDOWN_TIMEOUT_MS', { timeout: 60_000 }, async () => {
    // A publish gets its own grace (a video upload can take minutes); the platform answers in 4 s.
    const { running, postId } = await publishingWhenStopped('Done before exit', 20_000, 4_000);

    const code = await running.stop('SIGTERM');
    expect(code).toBe(0);
    const post = await world.ctx.db.posts.findById(postId).lean();
    expect(post?.state).toBe('PUBLISHED');
    expect(world.simulator.statuses.filter((status) => status.text === 'Done before exit')).toHaveLength(1);
    const output = running.output();
    expect(output.indexOf('"event":"post.published"')).toBeGreaterThan(output.indexOf('"event":"service.stopping"'));
    expect(output).not.toContain('handing them back');
  });

  it('hands back a publish still running at its deadline and exits cleanly, not at the hard deadline', {
    timeout: 60_000,
  }, async () => {
    const { running, postId } = await publishingWhenStopped('Handed back', 2_000, 15_000);

    const code = await running.stop('SIGTERM');
    const output = running.output();
    expect(output).toContain('handing them back');
    expect(output).not.toContain('shutdown deadline passed');
    expect(code).toBe(0);
    // Left active with a lock no one renews: another worker's stalled check takes it over.
    const connection = createRedis(world.ctx.config, 'producer', world.ctx.logger);
    const queue = new Queue(QueueName.publish, { connection, prefix: queuePrefixOf(world.ctx.config) });
    try {
      const active = await queue.getActive();
      expect(active.map((job) => (job.data as { postId?: string }).postId)).toContain(postId);
    } finally {
      await queue.close();
      await connection.quit();
    }
  });
});
