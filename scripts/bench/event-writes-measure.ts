import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Types } from 'mongoose';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import type { Database } from '../../shared/db/database.ts';
import { derivedObjectId } from '../../shared/db/derived-object-id.ts';
import { notify } from '../../shared/domain/notifications/notifications.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { WebhookOutbox } from '../../shared/domain/webhooks/webhook-outbox.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { QueueName } from '../../shared/queue/queues.ts';
import { WebhookDeliveryQueue } from '../../shared/queue/webhook-delivery-queue.ts';
import { median } from './results-table.ts';

export interface EventWritesSettings {
  /** Publishes told per round and side. */
  publishes: number;
  /** Publishes telling at once, as that many call slots finishing together do. */
  concurrency: number;
  rounds: number;
}

export interface EventWritesResult {
  publishes: number;
  concurrency: number;
  /** Median over the rounds of the time all publishes took to tell what they tell today. */
  todayMs: number;
  /** The same with the notification alone: the floor of any design writing one row per publish. */
  notificationOnlyMs: number;
}

type Tell = (index: number, round: number) => Promise<unknown>;

async function timeTelling(settings: EventWritesSettings, round: number, tell: Tell): Promise<number> {
  let next = 0;
  const startedAt = performance.now();
  const slot = async (): Promise<void> => {
    for (let index = next; index < settings.publishes; index = next) {
      next += 1;
      await tell(index, round);
    }
  };
  await Promise.all(Array.from({ length: settings.concurrency }, slot));
  return performance.now() - startedAt;
}

/**
 * Issue 31, item 6: whether grouping a publish's notification and its webhook deliveries into
 * one row would pay. A publish tells both at once today (publish-thread.ts, tellPublished), each
 * written together with what concurrent publishes write (GroupInsert), and the deliveries'
 * first attempts queued. Timed here through those same functions, on the database given, for an
 * organization with one endpoint subscribed to post.published, against the notification alone,
 * the least a one-row design (one event row fanned out later) could write on the publish's path.
 * The sides take turns, the first alternating; each round starts from empty collections.
 */
export async function measureEventWrites(
  db: Database,
  secrets: SecretBox,
  connection: Redis,
  options: EventWritesSettings & { queuePrefix: string },
): Promise<EventWritesResult> {
  const { organizationId } = await createOrganization(db, secrets, { name: 'Bench events' });
  const owner = new Types.ObjectId(organizationId);
  await db.webhookEndpoints.create({
    organizationId: owner, url: 'https://hooks.bench.invalid/sps', events: ['post.published'],
    secretSealed: secrets.seal('bench'),
  });
  const logger = createLogger({ level: 'warn', name: 'bench-events' });
  const jobs = new WebhookDeliveryQueue(connection, { prefix: options.queuePrefix });
  // The same queue, to empty it between rounds: nothing works it here.
  const queued = new Queue(QueueName.webhook, { connection, prefix: options.queuePrefix });
  const outbox = new WebhookOutbox({ db, logger, now: () => new Date(), reuseEndpointsMs: 60_000, jobs });
  const endpoints = await outbox.endpointsOf(organizationId);
  const told = (index: number, round: number, side: string): Types.ObjectId =>
    derivedObjectId(new Date(), 'bench.event', side, String(round), String(index));
  const message = (index: number) => ({ content: `Bench post ${String(index)} was published`, link: null });
  const sides: Record<'today' | 'notificationOnly', Tell> = {
    today: (index, round) => {
      const once = told(index, round, 'today');
      return Promise.all([
        notify(db, organizationId, message(index), once),
        outbox.emit(organizationId, 'post.published', {
          postId: once.toHexString(), group: 'bench', channelId: once.toHexString(), provider: 'mastodon',
          releaseURL: 'https://mastodon.bench.invalid/1', publishedAt: new Date().toISOString(),
        }, { endpoints, once }),
      ]);
    },
    notificationOnly: (index, round) => notify(db, organizationId, message(index), told(index, round, 'one')),
  };
  const times: Record<keyof typeof sides, number[]> = { today: [], notificationOnly: [] };
  const clear = async (): Promise<void> => {
    await Promise.all([
      db.notifications.deleteMany({ organizationId: owner }),
      db.webhookDeliveries.collection.deleteMany({ organizationId: owner }),
      queued.obliterate({ force: true }),
    ]);
  };
  try {
    for (let round = 0; round < options.rounds; round += 1) {
      const todayFirst: (keyof typeof sides)[] = ['today', 'notificationOnly'];
      const order = round % 2 === 0 ? todayFirst : [...todayFirst].reverse();
      for (const side of order) {
        await clear();
        times[side].push(await timeTelling(options, round, sides[side]));
      }
    }
  } finally {
    await clear();
    await db.webhookEndpoints.deleteMany({ organizationId: owner });
    await Promise.all([jobs.close(), queued.close()]);
  }
  return {
    publishes: options.publishes, concurrency: options.concurrency,
    todayMs: median(times.today), notificationOnlyMs: median(times.notificationOnly),
  };
}
