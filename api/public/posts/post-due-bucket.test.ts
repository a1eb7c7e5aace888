import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hourOf } from '../../../shared/domain/posts/due-bucket.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';

// No workers: what is under test is the bucket each write stores with the date, not publishing.
const world = useSimulatedStack({ workers: false });
const created = z.array(z.object({ postId: z.string() }));
const dayMs = 86_400_000;

/**
 * The due bucket (shared/domain/posts/due-bucket.ts) the recovery sweep finds a queued post by,
 * on every write that queues a post or moves its date: each part of the thread carries it.
 */
describe('a post\'s due bucket follows its publish date', () => {
  const channel = (name: string) =>
    organizationWithMastodon(world.ctx, world.simulator.origin, world.simulator.addAccount(name));
  type Channel = Awaited<ReturnType<typeof channel>>;
  const call = (org: Channel, path: string, init: { method?: string; body?: unknown } = {}) =>
    api(world.stack.baseUrl, org.apiKey, `/api/public/v1${path}`, init);
  type Fields = Record<string, unknown>;
  async function write(org: Channel, body: Fields, value: Fields[]): Promise<string> {
    const response = await call(org, '/posts', {
      method: 'POST', body: { ...body, posts: [{ integration: { id: org.channelId }, value }] },
    });
    expect(response.status).toBe(201);
    return created.parse(response.body)[0]?.postId ?? '';
  }
  /** Each part's date and bucket, root first. */
  async function stored(postId: string): Promise<{ publishDate: Date; dueHour: number | null | undefined }[]> {
    const root = await world.ctx.db.posts.findById(postId).lean();
    const replies = await world.ctx.db.posts.find({ rootPostId: postId }).sort({ position: 1 }).lean();
    return [root, ...replies]
      .flatMap((part) => (part === null ? [] : [{ publishDate: part.publishDate, dueHour: part.dueHour }]));
  }
  const allIn = (parts: { dueHour: number | null | undefined }[], hour: number) => {
    expect(parts.map((part) => part.dueHour)).toEqual(parts.map(() => hour));
  };

  it('is the hour of the date a post is scheduled for, on the root and its replies', async () => {
    const org = await channel('schedule');
    const date = new Date(Math.floor((Date.now() + dayMs) / 60_000) * 60_000);
    const thread = [{ content: 'a' }, { content: 'b' }];
    const postId = await write(org, { type: 'schedule', date: date.toISOString() }, thread);
    const parts = await stored(postId);
    expect(parts).toHaveLength(2);
    allIn(parts, hourOf(date));
  });

  it('moves when an edit moves the post to another day, and stays when an edit keeps the date', async () => {
    const org = await channel('edit');
    const tomorrow = new Date(Date.now() + dayMs).toISOString();
    const postId = await write(org, { type: 'schedule', date: tomorrow }, [{ content: 'a' }]);
    const later = new Date(Math.floor((Date.now() + 3 * dayMs) / 60_000) * 60_000);
    const edit = [{ id: postId, content: 'moved' }, { content: 'new reply' }];
    await write(org, { type: 'schedule', date: later.toISOString() }, edit);
    const moved = await stored(postId);
    expect(moved[0]?.publishDate).toEqual(later);
    allIn(moved, hourOf(later));

    await write(org, { type: 'update' }, [{ id: postId, content: 'words only' }, { content: 'reply' }]);
    allIn(await stored(postId), hourOf(later));
  });

  it('is the current hour for a post published now', async () => {
    const org = await channel('now');
    const before = hourOf(new Date());
    const postId = await write(org, { type: 'now' }, [{ content: 'now' }]);
    const [root] = await stored(postId);
    expect([before, hourOf(new Date())]).toContain(root?.dueHour);
    expect(root?.dueHour).toBe(hourOf(root?.publishDate ?? new Date(0)));
  });

  it('is the hour of the slot a queued post takes', async () => {
    const org = await channel('queue');
    const postingSlots = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, time: '09:30' }));
    const schedule = await call(org, `/integrations/${org.channelId}/schedule`, {
      method: 'PUT', body: { timeZone: 'UTC', postingSlots },
    });
    expect(schedule.status).toBe(200);
    const postId = await write(org, { type: 'queue' }, [{ content: 'queued' }]);
    const [root] = await stored(postId);
    expect(root?.publishDate.toISOString()).toMatch(/T09:30:00\.000Z$/);
    expect(root?.dueHour).toBe(hourOf(root?.publishDate ?? new Date(0)));
  });

  it('is the date\'s hour when a draft is scheduled, or the current hour when that date has passed', async () => {
    const org = await channel('status');
    const nextWeek = new Date(Math.floor((Date.now() + 7 * dayMs) / 60_000) * 60_000);
    const thread = [{ content: 'a' }, { content: 'b' }];
    const planned = await write(org, { type: 'draft', date: nextWeek.toISOString() }, thread);
    const overdue = await write(org, { type: 'draft' }, [{ content: 'c' }, { content: 'd' }]);
    // Written four days ago for three days ago, as a draft: its date and bucket are long past.
    const past = new Date(Date.now() - 3 * dayMs);
    const threeDaysAgo = { $set: { publishDate: past, dueHour: hourOf(past) } };
    await world.ctx.db.posts.updateOne({ _id: overdue }, threeDaysAgo);
    await world.ctx.db.posts.updateMany({ rootPostId: overdue }, threeDaysAgo);

    const before = hourOf(new Date());
    for (const postId of [planned, overdue]) {
      const scheduled = await call(org, `/posts/${postId}/status`, { method: 'PUT', body: { status: 'schedule' } });
      expect(scheduled).toMatchObject({ status: 200, body: { state: 'QUEUE' } });
    }
    allIn(await stored(planned), hourOf(nextWeek));
    // Its job runs now, so the sweep must look for it in this hour, not three days back.
    const late = await stored(overdue);
    expect(late[0]?.publishDate.getTime()).toBeLessThan(Date.now() - 2 * dayMs);
    expect([before, hourOf(new Date())]).toContain(late[0]?.dueHour);
    allIn(late, late[0]?.dueHour ?? 0);
  });
});
