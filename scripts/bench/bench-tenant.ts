import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { configSchema } from '../../shared/config/config.ts';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import { openDatabase, type Database } from '../../shared/db/database.ts';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { BullPublishScheduler, createPublishQueue } from '../../shared/queue/publish-queue.ts';

/**
 * One SPS database with its own queue prefix, served by its own workers process, holding the
 * organization whose posts the measures create (a Mastodon channel on the simulator).
 */
export interface BenchTenant {
  mongoUrl: string;
  queuePrefix: string;
  db: Database;
  organizationId: string;
  apiKey: string;
  channelId: string;
  /** SPS's publish queue under the tenant's prefix: job timings are read from it, and drained between measures. */
  publishQueue: Queue;
  /** The api's scheduling port over that queue, for posts created in this process. */
  scheduler: BullPublishScheduler;
}

export interface BenchTenantOptions {
  mongoUrl: string;
  queuePrefix: string;
  secrets: SecretBox;
  connection: Redis;
  /** The simulator's origin and a token it knows, for the organization's channel. */
  instanceUrl: string;
  token: string;
}

export async function createBenchTenant(options: BenchTenantOptions): Promise<BenchTenant> {
  const db = await openDatabase(options.mongoUrl);
  const { organizationId, apiKey } = await createOrganization(db, options.secrets, { name: 'Bench' });
  const { id: channelId } = await addTokenChannel(db, options.secrets, { allowPrivateNetwork: true }, {
    organizationId, provider: 'mastodon', name: 'Bench on the simulator',
    instanceUrl: options.instanceUrl, token: options.token,
  });
  // The api's job options (attempts, backoff, finished jobs trimmed), so a post created here is queued as
  // `POST /posts` would queue it and its worker does the same work on completion.
  const publishQueue = createPublishQueue(options.connection, {
    prefix: options.queuePrefix,
    attempts: configSchema.shape.PUBLISH_ATTEMPTS.parse(undefined),
    backoffMs: configSchema.shape.PUBLISH_BACKOFF_MS.parse(undefined),
  });
  return {
    mongoUrl: options.mongoUrl, queuePrefix: options.queuePrefix, db, organizationId, apiKey, channelId, publishQueue,
    scheduler: new BullPublishScheduler(publishQueue, options.connection),
  };
}

/**
 * Takes the benchmark organization's posts and notifications and the tenant's waiting and delayed
 * jobs back out, so the next measure finds the database at the size the table says.
 */
/**
 * Another Mastodon channel of the tenant's organization, on `instanceUrl` with `token`; the
 * benchmark organization has a handful, so its channel list is not trivial.
 */
export async function addBenchChannel(
  tenant: BenchTenant,
  secrets: SecretBox,
  channel: { name: string; instanceUrl: string; token: string },
): Promise<string> {
  const { id } = await addTokenChannel(tenant.db, secrets, { allowPrivateNetwork: true }, {
    organizationId: tenant.organizationId, provider: 'mastodon', ...channel,
  });
  return id;
}

export async function clearTenantWork(tenant: BenchTenant): Promise<void> {
  await tenant.db.posts.deleteMany({ organizationId: tenant.organizationId });
  await tenant.db.notifications.deleteMany({ organizationId: tenant.organizationId });
  await tenant.publishQueue.drain(true);
}

export async function closeBenchTenant(tenant: BenchTenant): Promise<void> {
  await tenant.publishQueue.close();
  await tenant.db.close();
}
