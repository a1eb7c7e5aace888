import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jobs, publishJobId } from '../../../shared/queue/queues.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';
import { waitFor } from '../../../test/support/stack.ts';

const created = z.array(z.object({ postId: z.string(), integration: z.string() }));
const postAnswer = z.object({
  id: z.string(), content: z.string(), publishDate: z.string(), state: z.string(),
  intervalInDays: z.number().nullable(), seriesId: z.string().nullable(), occurrence: z.number().nullable(),
  repeat: z.object({ rule: z.string(), until: z.string().nullable(), count: z.number().nullable() }).nullable(),
});
const errorAnswer = z.object({ error: z.string(), message: z.string() });

/**
 * Recurring posts through the api, the queue and the publish worker, against the Mastodon
 * simulator. Dates far ahead stand for the clock: each occurrence is made when the one before
 * settles (published, or deleted alone), from that one's stored date, never from the test's time.
 */
describe('recurring posts: intervalInDays and RFC 5545 rules', () => {
  const world = useSimulatedStack();
  const v1 = '/api/public/v1';

  async function organization() {
    const token = world.simulator.addAccount(`series${Math.random().toString(36).slice(2, 8)}`);
    return organizationWithMastodon(world.ctx, world.simulator.origin, token);
  }
  const call = (apiKey: string, path: string, init: { method?: string; body?: unknown } = {}) =>
    api(world.stack.baseUrl, apiKey, `${v1}${path}`, init);
  async function schedule(org: { apiKey: string; channelId: string }, content: string, extra: Record<string, unknown>) {
    const answer = await call(org.apiKey, '/posts', {
      method: 'POST',
      body: { type: 'schedule', posts: [{ integration: { id: org.channelId }, value: [{ content }] }], ...extra },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return created.parse(answer.body)[0]?.postId ?? '';
  }
  const getPost = async (apiKey: string, id: string) => postAnswer.parse((await call(apiKey, `/posts/${id}`)).body);
  /** The series' occurrences as stored, deleted ones included, by date. */
  const occurrences = (seriesId: string) =>
    world.ctx.db.posts.find({ seriesId, rootPostId: null }).sort({ publishDate: 1 }).lean();
  const remove = (apiKey: string, id: string, query = '') => call(apiKey, `/posts/${id}${query}`, { method: 'DELETE' });

  it('makes the next daily occurrence when the first is published, and not twice when its job runs again', async () => {
    const org = await organization();
    const date = new Date(Date.now() - 1_000).toISOString();
    const first = await schedule(org, 'Daily tip', { date, intervalInDays: 1 });
    const next = await waitFor(async () => {
      const found = await occurrences(first);
      return found.length === 2 ? found[1] : undefined;
    }, { what: 'the second occurrence', timeoutMs: 30_000 });
    const published = await getPost(org.apiKey, first);
    expect(published).toMatchObject({ state: 'PUBLISHED', intervalInDays: 1, seriesId: first, occurrence: 1 });
    expect(next.publishDate.getTime()).toBe(new Date(published.publishDate).getTime() + 86_400_000);
    expect(next).toMatchObject({ state: 'QUEUE', content: 'Daily tip', occurrence: 2, seriesId: first });
    const nextId = next._id.toString();
    expect(await world.stack.publishQueue.getJobState(publishJobId(nextId))).toBe('delayed');
    const listed = await call(org.apiKey, `/posts?startDate=${new Date(Date.now() - 86_400_000).toISOString()}`
      + `&endDate=${new Date(Date.now() + 3 * 86_400_000).toISOString()}`);
    const listedSeries = z.object({ posts: z.array(postAnswer) }).parse(listed.body).posts.map((post) => post.seriesId);
    expect(listedSeries).toEqual([first, first]);

    // The first's job again, as after a worker killed before BullMQ heard it finished.
    await world.stack.publishQueue.remove(publishJobId(first));
    await world.stack.publishQueue.add(jobs.publishPost.name, { organizationId: org.organizationId, postId: first }, {
      jobId: publishJobId(first),
    });
    await waitFor(async () => (await world.stack.publishQueue.getJobState(publishJobId(first))) === 'completed'
      || undefined, { what: 'the job run again' });
    expect(await occurrences(first)).toHaveLength(2);
    expect(world.simulator.statuses.filter((status) => status.text === 'Daily tip')).toHaveLength(1);
  });

  it('goes on after an occurrence fails: the next one follows the failed one\'s date', async () => {
    const org = await organization();
    world.simulator.failNext({ status: 422, body: { error: 'Validation failed: refused' } });
    const date = new Date(Date.now() - 1_000);
    const first = await schedule(org, 'Refused tip', { date: date.toISOString(), intervalInDays: 3 });
    const next = await waitFor(async () => {
      const found = await occurrences(first);
      return found.length === 2 ? found[1] : undefined;
    }, { what: 'the occurrence after the failed one', timeoutMs: 30_000 });
    expect((await getPost(org.apiKey, first)).state).toBe('ERROR');
    expect(next).toMatchObject({ state: 'QUEUE', occurrence: 2 });
    expect(next.publishDate.getTime()).toBe(date.getTime() + 3 * 86_400_000);
  });

  it('keeps a weekly MO,TH rule at 09:00 Berlin time across the October change, and stops after count', async () => {
    const org = await organization();
    const zone = await call(org.apiKey, `/integrations/${org.channelId}/schedule`, {
      method: 'PUT', body: { timeZone: 'Europe/Berlin', postingSlots: [] },
    });
    expect(zone.status).toBe(200);
    // Monday 21 October 2030, 09:00 CEST; Berlin's clocks go back on Sunday the 27th.
    const first = await schedule(org, 'Weekly digest', {
      date: '2030-10-21T07:00:00Z', repeat: { rule: 'FREQ=WEEKLY;BYDAY=MO,TH', count: 3 },
    });
    expect(await getPost(org.apiKey, first)).toMatchObject({
      intervalInDays: null, seriesId: first, occurrence: 1,
      repeat: { rule: 'FREQ=WEEKLY;BYDAY=MO,TH', until: null, count: 3 },
    });
    // Deleting one occurrence keeps the series: the next one is made in its place.
    expect((await remove(org.apiKey, first)).status).toBe(200);
    const second = (await occurrences(first)).find((post) => post.deletedAt === null);
    expect(second?.publishDate.toISOString()).toBe('2030-10-24T07:00:00.000Z');
    expect((await remove(org.apiKey, second?._id.toString() ?? '')).status).toBe(200);
    const third = (await occurrences(first)).find((post) => post.deletedAt === null);
    expect(third?.publishDate.toISOString()).toBe('2030-10-28T08:00:00.000Z');
    expect(third?.occurrence).toBe(3);
    expect((await remove(org.apiKey, third?._id.toString() ?? '')).status).toBe(200);
    const all = await occurrences(first);
    expect(all).toHaveLength(3);
    expect(all.every((post) => post.deletedAt !== null)).toBe(true);
  });

  it('carries an edit of the upcoming occurrence on, and deletes the series\' future occurrences', async () => {
    const org = await organization();
    const first = await schedule(org, 'Old text', { date: '2031-03-03T10:00:00Z', intervalInDays: 7 });
    const edited = await call(org.apiKey, '/posts', {
      method: 'POST',
      body: {
        type: 'schedule', date: '2031-03-04T10:00:00Z',
        posts: [{ integration: { id: org.channelId }, value: [{ id: first, content: 'New text' }] }],
      },
    });
    expect(edited.status).toBe(201);
    expect((await remove(org.apiKey, first)).status).toBe(200);
    const next = (await occurrences(first)).find((post) => post.deletedAt === null);
    // The moved date is the rule's new start: a week after it, with the new text.
    expect(next).toMatchObject({ content: 'New text', occurrence: 2 });
    expect(next?.publishDate.toISOString()).toBe('2031-03-11T10:00:00.000Z');

    const nextId = next?._id.toString() ?? '';
    const ended = await remove(org.apiKey, nextId, '?series=true');
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ id: nextId, deleted: true, series: { seriesId: first, deleted: 1 } });
    expect((await occurrences(first)).every((post) => post.deletedAt !== null)).toBe(true);
    expect((await call(org.apiKey, `/posts/${nextId}`)).status).toBe(404);
    expect(await world.stack.publishQueue.getJob(publishJobId(nextId))).toBeUndefined();

    const single = await schedule(org, 'Once', { date: '2031-03-03T10:00:00Z' });
    const refused = errorAnswer.parse((await remove(org.apiKey, single, '?series=true')).body);
    expect(refused).toMatchObject({ error: 'validation_failed' });
  });

  it.each([
    ['a rule rrule cannot read', { repeat: { rule: 'FREQ=WEEKLY;BYDAY=XX', count: 3 } }, /BYDAY/],
    ['a rule without an end', { repeat: { rule: 'FREQ=DAILY' } }, /until or count/],
    ['a count over the cap', { repeat: { rule: 'FREQ=DAILY', count: 367 } }, /366/],
    ['COUNT inside the rule', { repeat: { rule: 'FREQ=DAILY;COUNT=2', count: 2 } }, /repeat.count/],
    ['both shapes', { intervalInDays: 2, repeat: { rule: 'FREQ=DAILY', count: 2 } }, /not both/],
    ['an interval of 0 days', { intervalInDays: 0 }, /intervalInDays/],
    ['a repeat on a draft', { type: 'draft', intervalInDays: 1 }, /type "schedule"/],
  ])('answers 400 validation_failed for %s', async (_name, extra, reason) => {
    const org = await organization();
    const answer = await call(org.apiKey, '/posts', {
      method: 'POST',
      body: {
        type: 'schedule', date: '2031-01-01T10:00:00Z',
        posts: [{ integration: { id: org.channelId }, value: [{ content: 'Bad repeat' }] }], ...extra,
      },
    });
    expect(answer.status).toBe(400);
    const body = errorAnswer.parse(answer.body);
    expect(body.error).toBe('validation_failed');
    expect(body.message).toMatch(reason);
    expect(await world.ctx.db.posts.countDocuments({ organizationId: new Types.ObjectId(org.organizationId) }))
      .toBe(0);
  });
});
