import { Queue } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { queuePrefixOf } from '../../shared/queue/queue-prefix.ts';
import { QueueName } from '../../shared/queue/queues.ts';
import { createRedis } from '../../shared/queue/redis.ts';
import { organizationWithMastodon } from '../support/fixtures.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { waitFor } from '../support/stack.ts';

/**
 * The publish worker takes two jobs per calls slot and one more for the next video, plus one per
 * upload slot in use (publishJobsHeld): a burst of text posts does not fill the upload slots' jobs
 * with posts that can only wait for the calls slots, crowding the database with their reads.
 */
describe('the publish jobs a worker process holds', () => {
  const world = useSimulatedStack({
    overrides: { PUBLISH_CONCURRENCY: '1', PUBLISH_UPLOAD_CONCURRENCY: '4', PUBLISH_ACCOUNT_CONCURRENCY: '1' },
  });

  it('holds 2 jobs per calls slot and 1 for a video during a burst of text posts, not 1 per upload slot', async () => {
    const { simulator } = world;
    const connection = createRedis(world.ctx.config, 'producer', world.ctx.logger);
    const queue = new Queue(QueueName.publish, { connection, prefix: queuePrefixOf(world.ctx.config) });
    const organizations = await Promise.all(Array.from({ length: 8 }, (_, index) =>
      organizationWithMastodon(world.ctx, simulator.origin, simulator.addAccount(`held${index}`))));
    const release = simulator.statusesInFlight.hold();
    const posts: string[] = [];
    try {
      for (const [index, org] of organizations.entries()) {
        posts.push(await publishNow(world.stack.baseUrl, org, [`Held ${index}`]));
      }
      await waitFor(async () => (await queue.getActiveCount() >= 3 ? true : undefined), {
        what: 'three publish jobs active', timeoutMs: 20_000,
      });
      // Long enough for a worker with room to take more of the 8 waiting jobs.
      await sleep(1_000);
      expect(await queue.getActiveCount()).toBe(3);
      expect(simulator.statusesInFlight.now).toBe(1);
      const publish = world.stack.workers?.workers.find((worker) => worker.name === QueueName.publish);
      expect(publish?.concurrency).toBe(3);
    } finally {
      release();
      await queue.close();
      await connection.quit();
    }
    for (const postId of posts) {
      const [root] = await settledParts(world.ctx.db, postId);
      expect(root?.state).toBe('PUBLISHED');
    }
  });
});
