import { Queue } from 'bullmq';
import { configSchema } from '../../../shared/config/config.ts';
import { openDatabase, type Database } from '../../../shared/db/database.ts';
import { addTokenChannel } from '../../../shared/domain/channels/channels.ts';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { BullPublishScheduler, createPublishQueue } from '../../../shared/queue/publish-queue.ts';
import { MastodonSimulator } from '../../../test/simulators/mastodon/mastodon-simulator.ts';
import type { BenchServers } from '../bench-servers.ts';
import type { BenchStack } from '../bench-stack.ts';
import { inParallel, type PostingOrganization } from '../due-posts.ts';

/** An organization of the scale measures and its channels, each an account of its own on the simulator. */
export interface ScaleOrganization extends PostingOrganization {
  channelIds: string[];
}

/**
 * Issue 31's world: a database and queue prefix of its own with many organizations of many
 * channels, on a Mastodon stand-in whose status answers take as long as a real platform's
 * (`simulator.responseDelayMs`, set per measure), and the bare queue a bare worker drains.
 */
export interface ScaleWorld {
  mongoUrl: string;
  queuePrefix: string;
  db: Database;
  organizations: ScaleOrganization[];
  simulator: MastodonSimulator;
  /** A token of the simulator for the bare worker (one account: the stand-in has no per-account cost). */
  bareToken: string;
  publishQueue: Queue;
  bareQueue: Queue;
  close(): Promise<void>;
}

export interface ScaleWorldSize {
  organizations: number;
  channelsPerOrganization: number;
}

/** The bare worker's queue under the scale world's prefix. */
export const scaleBareQueue = 'bare-publish-scale';

/** Mastodon's own throttles would stop the measures after a few hundred posts. */
const unlimited = { limit: Number.MAX_SAFE_INTEGER, periodMs: 60_000 };

export async function createScaleWorld(
  stack: BenchStack,
  servers: BenchServers,
  size: ScaleWorldSize,
): Promise<ScaleWorld> {
  const simulator = new MastodonSimulator({ rateLimits: { api: unlimited, media: unlimited, statuses: unlimited } });
  await simulator.start();
  const mongoUrl = `${servers.mongoRootUrl}sps_scale`;
  const queuePrefix = `${servers.queuePrefix}-scale`;
  const db = await openDatabase(mongoUrl);
  // The api's job options, so a post created here is queued as `POST /posts` would queue it.
  const publishQueue = createPublishQueue(stack.connection, {
    prefix: queuePrefix,
    attempts: configSchema.shape.PUBLISH_ATTEMPTS.parse(undefined),
    backoffMs: configSchema.shape.PUBLISH_BACKOFF_MS.parse(undefined),
  });
  const scheduler = new BullPublishScheduler(publishQueue, stack.connection);
  const organizations: ScaleOrganization[] = [];
  for (let number = 0; number < size.organizations; number += 1) {
    const { organizationId } = await createOrganization(db, stack.secrets, { name: `Scale ${number}` });
    const channelIds: string[] = [];
    await inParallel(size.channelsPerOrganization, 10, async (index) => {
      const { id } = await addTokenChannel(db, stack.secrets, { allowPrivateNetwork: true }, {
        organizationId, provider: 'mastodon', name: `Scale ${number}.${index}`,
        instanceUrl: simulator.origin, token: simulator.addAccount(`scale${number}x${index}`),
      });
      channelIds.push(id);
    });
    organizations.push({ organizationId, db, scheduler, channelIds });
  }
  const bareQueue = new Queue(scaleBareQueue, { connection: stack.connection, prefix: queuePrefix });
  return {
    mongoUrl, queuePrefix, db, organizations, simulator, publishQueue, bareQueue,
    bareToken: simulator.addAccount('scale-bare'),
    async close() {
      await Promise.all([publishQueue.close(), bareQueue.close()]);
      await db.close();
      await simulator.stop();
    },
  };
}

/** Takes the measure's posts, notifications and pending jobs back out. */
export async function clearScaleWork(world: ScaleWorld): Promise<void> {
  await world.db.posts.deleteMany({});
  await world.db.notifications.deleteMany({});
  await Promise.all([world.publishQueue.drain(true), world.bareQueue.drain(true)]);
}
