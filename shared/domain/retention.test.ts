import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';
import { deleteOldHistory } from './retention.ts';

const day = 86_400_000;

/** Retention of what every publish adds: notifications and webhook deliveries, against FerretDB. */
describe('history past its retention', () => {
  let ctx: TestContext;
  beforeAll(async () => { ctx = await createTestContext(); });
  afterAll(async () => { await ctx.cleanup(); });

  it('removes notifications older than their days and keeps the others', async () => {
    const now = new Date();
    const organizationId = new Types.ObjectId();
    const at = (daysAgo: number) => ({
      organizationId, content: `${daysAgo} days ago`, link: null, createdAt: new Date(now.getTime() - daysAgo * day),
    });
    await ctx.db.notifications.collection.insertMany([at(91), at(89), at(1)]);
    const removed = await deleteOldHistory(ctx.db, now, { notifications: 90, webhookDeliveries: 30, events: 30 });
    expect(removed.notifications).toBe(1);
    const kept = await ctx.db.notifications.find({ organizationId }).sort({ createdAt: -1 }).lean();
    expect(kept.map((notification) => notification.content)).toEqual(['1 days ago', '89 days ago']);
  });

  it('removes ended deliveries past their days, never a pending one however old', async () => {
    const now = new Date();
    const endpointId = new Types.ObjectId();
    const delivery = (status: string, daysAgo: number) => ({
      organizationId: new Types.ObjectId(), endpointId, event: 'post.published', eventId: `${status}-${daysAgo}`,
      body: '{}', status, attempt: 1, attempts: [],
      createdAt: new Date(now.getTime() - daysAgo * day), updatedAt: new Date(now.getTime() - daysAgo * day),
    });
    await ctx.db.webhookDeliveries.collection.insertMany([
      delivery('delivered', 31), delivery('failed', 40), delivery('pending', 60), delivery('delivered', 29),
    ]);
    const removed = await deleteOldHistory(ctx.db, now, { notifications: 90, webhookDeliveries: 30, events: 30 });
    expect(removed.webhookDeliveries).toBe(2);
    const left = await ctx.db.webhookDeliveries.find({ endpointId }).lean();
    expect(left.map((kept) => kept.eventId).sort()).toEqual(['delivered-29', 'pending-60']);
  });
});
