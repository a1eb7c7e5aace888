import { InvalidationPublisher } from '../../shared/cache/invalidation-bus.ts';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import { deleteEndpoint, registerEndpoint } from '../../shared/domain/webhooks/webhook-endpoints.ts';
import type { BenchStack } from './bench-stack.ts';
import { createDuePosts, estimateCreationMs } from './due-posts.ts';
import { StatusReceipts, statusText } from './status-receipts.ts';

export interface PublishRateSettings {
  /** Posts (jobs) all due at the same moment. */
  posts: number;
  /** Posts created at once (SPS's are made with `createPosts`). */
  connections: number;
  /** The posts are due this long after the last one was (expected to be) created. */
  leadMs: number;
  /** How long after the due time the measure waits for the last status. */
  graceMs: number;
}

export interface PublishRateResult {
  expected: number;
  /** Statuses the slow simulator received. */
  published: number;
  /** Statuses after the first, per second from the first receipt to the last. */
  jobsPerSecond: number;
  /** Time left between the last creation and the due time; negative if creating took too long. */
  headroomMs: number;
}

/** Waits for every status, then the rate at which they arrived: a backlog drained by one worker. */
async function collect(
  receipts: StatusReceipts,
  settings: PublishRateSettings,
  due: number,
  headroomMs: number,
): Promise<PublishRateResult> {
  await receipts.waitFor(settings.posts, due + settings.graceMs);
  receipts.stop();
  const times = [...receipts.receivedAt.values()].sort((a, b) => a - b);
  const spanMs = (times.at(-1) ?? 0) - (times[0] ?? 0);
  const jobsPerSecond = times.length < 2 || spanMs <= 0 ? Number.NaN : (times.length - 1) / (spanMs / 1000);
  return { expected: settings.posts, published: times.length, jobsPerSecond, headroomMs };
}

/** Never called: the webhook workers do not run in the benchmark, so deliveries are only recorded. */
const webhookUrl = 'https://hooks.bench.invalid/sps';

/**
 * SPS: `posts` real posts on the channel of the slow simulator, made with the api's
 * `createPosts` and all due at the same moment, published by the workers process (concurrency
 * `publishConcurrency`) with everything a publish does: the post read, the platform call, the
 * result written, the notification, and the `post.published` event written to the webhook
 * outbox (the organization has an endpoint subscribed to it during the measure).
 */
export async function measureSpsPublishRate(
  stack: BenchStack,
  settings: PublishRateSettings,
  tag: string,
): Promise<PublishRateResult> {
  const { main } = stack;
  // The api process may keep the organization's endpoints: registering tells it, as the api's routes do.
  const caches = new InvalidationPublisher(stack.connection, main.queuePrefix);
  const deps = { db: main.db, secrets: stack.secrets, userHosts: connectionPolicyFor(false), caches };
  const { endpoint } = await registerEndpoint(deps, main.organizationId, {
    url: webhookUrl, events: ['post.published'],
  });
  try {
    const creationMs = 1.5 * await estimateCreationMs(main, stack.slowChannelId, settings.posts, settings.connections);
    const due = Date.now() + creationMs + settings.leadMs;
    const receipts = new StatusReceipts(stack.slowSimulator, tag);
    const dues = Array.from({ length: settings.posts }, () => due);
    const text = (index: number): string => statusText(tag, index);
    const headroomMs = await createDuePosts(main, stack.slowChannelId, dues, text, settings.connections);
    return await collect(receipts, settings, due, headroomMs);
  } finally {
    await deleteEndpoint(deps, main.organizationId, endpoint.id);
  }
}

/** The baseline: as many bare BullMQ jobs due at the same moment, each one HTTP POST to the slow simulator. */
export async function measureBarePublishRate(
  stack: BenchStack,
  settings: PublishRateSettings,
  tag: string,
): Promise<PublishRateResult> {
  const due = Date.now() + settings.leadMs;
  const receipts = new StatusReceipts(stack.slowSimulator, tag);
  const now = Date.now();
  await stack.bareQueues.slowPublish.addBulk(Array.from({ length: settings.posts }, (_, index) => ({
    name: 'publish', data: { text: statusText(tag, index) },
    opts: { delay: Math.max(0, due - now), removeOnComplete: true },
  })));
  return collect(receipts, settings, due, due - Date.now());
}
