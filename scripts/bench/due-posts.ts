import { createPosts } from '../../shared/domain/posts/create-posts.ts';
import { WebhookOutbox } from '../../shared/domain/webhooks/webhook-outbox.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { clearTenantWork, type BenchTenant } from './bench-tenant.ts';

/** Who a post is created for: an organization, its database and its queue's scheduler. */
export type PostingOrganization = Pick<BenchTenant, 'db' | 'scheduler' | 'organizationId'>;

/** Creates one single-part post on `channelId` due at `due`, with the api's own `createPosts`. */
export async function createDuePost(
  tenant: PostingOrganization,
  channelId: string,
  due: number,
  content: string,
): Promise<string> {
  const now = () => new Date();
  // The api's outbox, so the measured create writes its post.created as the api's does.
  const webhooks = new WebhookOutbox({ db: tenant.db, logger: createLogger({ name: 'bench', level: 'warn' }), now });
  const deps = { db: tenant.db, scheduler: tenant.scheduler, now, webhooks };
  const [post] = await createPosts(deps, tenant.organizationId, {
    type: 'schedule', date: new Date(due), tags: [],
    posts: [{ integration: { id: channelId }, value: [{ content, image: [] }] }],
  });
  if (post === undefined) throw new Error('createPosts created no post');
  return post.postId;
}

/** Runs `task(index)` for every index below `count`, `concurrency` at a time. */
export async function inParallel(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(count, concurrency) }, loop));
}

/** A post due this far ahead is never published during the run. */
const farFuture = Date.parse('2099-01-01T00:00:00.000Z');

/**
 * How long creating `count` posts will take, from a sample (one post in 20, at least 50) created
 * the same way, due far in the future, and taken back out. Due times must be known before the
 * posts are created, and creating must be over before the first one is due.
 */
export async function estimateCreationMs(
  tenant: BenchTenant,
  channelId: string,
  count: number,
  concurrency: number,
): Promise<number> {
  const sample = Math.min(count, Math.max(50, Math.ceil(count / 20)));
  const startedAt = performance.now();
  await inParallel(sample, concurrency, async (index) => {
    await createDuePost(tenant, channelId, farFuture, `bench sample ${index}`);
  });
  const perPostMs = (performance.now() - startedAt) / sample;
  await clearTenantWork(tenant);
  return perPostMs * count;
}

/**
 * Creates the posts due at `dues` (the `index`th with the text `text(index)`), `concurrency` at a
 * time, in due order; resolves with the time left until the first due time (negative: too late).
 */
export async function createDuePosts(
  tenant: BenchTenant,
  channelId: string,
  dues: readonly number[],
  text: (index: number) => string,
  concurrency: number,
): Promise<number> {
  await inParallel(dues.length, concurrency, async (index) => {
    await createDuePost(tenant, channelId, dues[index] ?? farFuture, text(index));
  });
  return Math.min(...dues) - Date.now();
}
