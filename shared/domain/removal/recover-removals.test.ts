import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { queuePrefixOf } from '../../queue/queue-prefix.ts';
import { createRedis } from '../../queue/redis.ts';
import { BullRemovalJobs } from '../../queue/removal-queue.ts';
import { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import { recoverLostRemovals, type RemovalRecoveryDeps } from './recover-removals.ts';

/** The removal sweep against the suite's database and Redis, with the removal queue served by no worker. */
describe('queueing lost removals again', () => {
  let ctx: TestContext;
  let connection: ReturnType<typeof createRedis>;
  let jobs: BullRemovalJobs;
  let deps: RemovalRecoveryDeps;
  const organizationId = new Types.ObjectId();
  const channelId = new Types.ObjectId();
  const settings = { graceMs: 30_000, batchSize: 50, maxRecoveries: 2 };

  beforeAll(async () => {
    ctx = await createTestContext();
    connection = createRedis(ctx.config, 'producer', ctx.logger);
    const queueSettings = { prefix: queuePrefixOf(ctx.config), attempts: 1, backoffMs: 10 };
    jobs = new BullRemovalJobs(connection, queueSettings, ctx.logger);
    const now = () => new Date();
    deps = { db: ctx.db, jobs, now, webhooks: new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now }) };
  });
  afterAll(async () => {
    await jobs.close();
    await connection.quit();
    await ctx.cleanup();
  });

  /** A deleted post of one published part whose removal is still queued, deleted `agoMs` ago. */
  async function pendingRemoval(agoMs: number, recoveries = 0) {
    const deletedAt = new Date(Date.now() - agoMs);
    const [root] = await ctx.db.posts.create([{
      organizationId, channelId, group: 'g', rootPostId: null, position: 0, publishDate: deletedAt,
      state: 'PUBLISHED', releaseId: '42', deletedAt, removalPending: true, removalRecoveries: recoveries,
      removal: { state: 'queued', method: 'delete', at: deletedAt },
    }]);
    if (root === undefined) throw new Error('the post is stored');
    return root._id;
  }

  it('queues a removal whose job is gone once, leaves a recent one and one whose job waits', async () => {
    const lost = await pendingRemoval(60_000);
    const recent = await pendingRemoval(1_000);
    const first = await recoverLostRemovals(deps, settings);
    expect(first.requeued).toBe(1);
    expect(await jobs.presence(lost.toString())).toBe('pending');
    expect(await jobs.presence(recent.toString())).toBe('absent');
    expect((await ctx.db.posts.findById(lost).lean())?.removalRecoveries).toBe(1);
    // Its job now waits: the next sweep leaves it alone.
    expect((await recoverLostRemovals(deps, settings)).requeued).toBe(0);
  });

  it('fails the pending parts of a removal past its recoveries and tells post.deleted with them', async () => {
    const exhausted = await pendingRemoval(60_000, settings.maxRecoveries);
    const result = await recoverLostRemovals(deps, settings);
    expect(result.failed).toBe(1);
    const root = await ctx.db.posts.findById(exhausted).lean();
    expect(root?.removalPending).toBe(false);
    expect(root?.removal).toMatchObject({ state: 'failed', category: 'interrupted' });
    expect(await jobs.presence(exhausted.toString())).toBe('absent');
    const told = await ctx.db.events.find({ type: 'post.deleted', organizationId }).lean();
    const bodies = told.map((event) => JSON.parse(event.body) as { data: { postId: string } });
    expect(bodies.map((body) => body.data.postId)).toContain(exhausted.toString());
  });
});
