import { DateTime } from 'luxon';
import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { publishJobId } from '../../../shared/queue/queues.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';
import { expectError, v1 } from '../../../test/support/channel-test-kit.ts';

const slotAnswer = z.object({ date: z.iso.datetime() });
const scheduleAnswer = z.object({
  timeZone: z.string(),
  postingSlots: z.array(z.object({ weekday: z.number(), time: z.string() })),
});
const created = z.array(z.object({ postId: z.string(), integration: z.string() }));

const allWeek = [1, 2, 3, 4, 5, 6, 7];
const everyDay = (...times: string[]) => allWeek.flatMap((weekday) => times.map((time) => ({ weekday, time })));

/**
 * The first `count` instants after `after` at which clocks in `zone` show one of `times` on one
 * of `weekdays`. The test's own reading of the zone, through luxon's DateTime in a zone without
 * daylight saving (Asia/Kolkata, UTC+05:30 all year), so it does not share the code under test.
 */
function localSlots(zone: string, after: number, times: string[], count: number, weekdays = allWeek): string[] {
  const found: string[] = [];
  const start = DateTime.fromMillis(after, { zone }).startOf('day');
  for (let day = 0; found.length < count; day += 1) {
    const date = start.plus({ days: day });
    if (!weekdays.includes(date.weekday)) continue;
    for (const time of [...times].sort()) {
      const slot = date.set({ hour: Number(time.slice(0, 2)), minute: Number(time.slice(3)) });
      if (slot.toMillis() > after && found.length < count) found.push(slot.toUTC().toISO() ?? '');
    }
  }
  return found;
}

describe('posting schedules: time zone and weekly slots per channel, find-slot and the queue post type', () => {
  const world = useSimulatedStack({ workers: false });

  const call = (apiKey: string, path: string, init: { method?: string; body?: unknown } = {}) =>
    api(world.stack.baseUrl, apiKey, `${v1}${path}`, init);
  const organization = () => organizationWithMastodon(world.ctx, 'http://127.0.0.1:1234', 'token');
  const putSchedule = (apiKey: string, channelId: string, body: unknown) =>
    call(apiKey, `/integrations/${channelId}/schedule`, { method: 'PUT', body });
  const setSchedule = async (apiKey: string, channelId: string, timeZone: string, postingSlots: unknown[]) => {
    const response = await putSchedule(apiKey, channelId, { timeZone, postingSlots });
    expect(response.status).toBe(200);
    return response.body;
  };
  const createPosts = (apiKey: string, body: Record<string, unknown>, contents: [string, string][]) =>
    call(apiKey, '/posts', {
      method: 'POST',
      body: { ...body, posts: contents.map(([id, content]) => ({ integration: { id }, value: [{ content }] })) },
    });
  /** The `index`th slot from `before` or from now: a slot may pass while the request runs. */
  const eitherSlot = (zone: string, before: number, times: string[], index: number) =>
    [localSlots(zone, before, times, index + 1)[index], localSlots(zone, Date.now(), times, index + 1)[index]];
  const findSlot = async (apiKey: string, channelId: string): Promise<string> => {
    const response = await call(apiKey, `/find-slot/${channelId}`);
    expect(response.status).toBe(200);
    return new Date(slotAnswer.parse(response.body).date).toISOString();
  };

  it('answers a new channel\'s schedule: its former daily times, in UTC', async () => {
    const org = await organization();
    const response = await call(org.apiKey, `/integrations/${org.channelId}/schedule`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ timeZone: 'UTC', postingSlots: everyDay('09:20', '14:10', '19:00') });
  });

  it('keeps a channel saved before schedules working: its UTC minutes become daily slots', async () => {
    const org = await organization();
    await world.ctx.db.channels.collection.updateOne(
      { _id: new Types.ObjectId(org.channelId) },
      { $set: { postingTimes: [600] }, $unset: { timeZone: 1, postingSlots: 1 } },
    );
    const schedule = scheduleAnswer.parse((await call(org.apiKey, `/integrations/${org.channelId}/schedule`)).body);
    expect(schedule).toEqual({ timeZone: 'UTC', postingSlots: everyDay('10:00') });
    const before = Date.now();
    const slot = await findSlot(org.apiKey, org.channelId);
    expect(eitherSlot('UTC', before, ['10:00'], 0)).toContain(slot);
  });

  it('stores the zone (its usual spelling) and slots, and find-slot answers the local time in UTC', async () => {
    const org = await organization();
    const spelled = await putSchedule(org.apiKey, org.channelId, { timeZone: 'europe/berlin', postingSlots: [] });
    expect(spelled.body).toEqual({ timeZone: 'Europe/Berlin', postingSlots: [] });
    const stored = await setSchedule(org.apiKey, org.channelId, 'Asia/Kolkata', everyDay('09:00'));
    expect(stored).toEqual({ timeZone: 'Asia/Kolkata', postingSlots: everyDay('09:00') });
    expect((await call(org.apiKey, `/integrations/${org.channelId}/schedule`)).body).toEqual(stored);
    const document = await world.ctx.db.channels.collection.findOne({ _id: new Types.ObjectId(org.channelId) });
    expect(document?.postingTimes).toBeUndefined();

    const before = Date.now();
    const slot = await findSlot(org.apiKey, org.channelId);
    // 09:00 in Kolkata is 03:30 UTC.
    expect(slot).toMatch(/T03:30:00\.000Z$/);
    expect(eitherSlot('Asia/Kolkata', before, ['09:00'], 0)).toContain(slot);
  });

  it('takes weekdays in the channel\'s zone', async () => {
    const org = await organization();
    const weekday = DateTime.now().setZone('Asia/Kolkata').plus({ days: 3 }).weekday;
    const slots = [{ weekday, time: '23:45' }];
    await setSchedule(org.apiKey, org.channelId, 'Asia/Kolkata', slots);
    const slot = await findSlot(org.apiKey, org.channelId);
    expect(slot).toBe(localSlots('Asia/Kolkata', Date.now(), ['23:45'], 1, [weekday])[0]);
    expect(DateTime.fromISO(slot, { zone: 'Asia/Kolkata' }).weekday).toBe(weekday);
  });

  it('queues posts into consecutive free slots, per channel, and find-slot answers the one after', async () => {
    const org = await organization();
    // A second channel of the same organization, with a schedule of its own.
    const second = await world.ctx.db.channels.create({
      organizationId: new Types.ObjectId(org.organizationId), provider: 'mastodon', name: 'Second',
      instanceUrl: 'http://127.0.0.1:1234', tokenSealed: world.ctx.secrets.seal('token'),
    });
    const secondId = second._id.toString();
    const times = ['09:00', '18:00'];
    await setSchedule(org.apiKey, org.channelId, 'Asia/Kolkata', everyDay(...times));
    await setSchedule(org.apiKey, secondId, 'Asia/Kolkata', everyDay('12:00'));

    const before = Date.now();
    const first = await createPosts(org.apiKey, { type: 'queue' }, [
      [org.channelId, 'one'], [secondId, 'elsewhere'], [org.channelId, 'two'],
    ]);
    expect(first.status).toBe(201);
    const later = await createPosts(org.apiKey, { type: 'queue' }, [[org.channelId, 'three']]);
    expect(later.status).toBe(201);
    const ids = [...created.parse(first.body), ...created.parse(later.body)].map((entry) => entry.postId);
    const parts = await Promise.all(ids.map((id) => world.ctx.db.posts.findById(id).lean()));
    const dates = parts.map((part) => part?.publishDate.toISOString());
    const after = Date.now();

    const expected = [before, after].map((from) => {
      const own = localSlots('Asia/Kolkata', from, times, 4);
      const other = localSlots('Asia/Kolkata', from, ['12:00'], 1);
      return [own[0], other[0], own[1], own[2]];
    });
    expect(expected).toContainEqual(dates);
    const next = await findSlot(org.apiKey, org.channelId);
    expect(eitherSlot('Asia/Kolkata', before, times, 3)).toContain(next);

    for (const id of ids) {
      const job = await world.stack.publishQueue.getJob(publishJobId(id));
      expect(await job?.getState()).toBe('delayed');
    }
    expect(parts.map((part) => part?.state)).toEqual(['QUEUE', 'QUEUE', 'QUEUE', 'QUEUE']);
  });

  it('gives requests queueing on one channel at the same moment a slot each, none shared', async () => {
    const org = await organization();
    await setSchedule(org.apiKey, org.channelId, 'Asia/Kolkata', everyDay('07:00', '13:00', '21:00'));
    const answers = await Promise.all(Array.from({ length: 6 }, (_, index) =>
      createPosts(org.apiKey, { type: 'queue' }, [[org.channelId, `at once ${String(index)}`]])));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const posts = await world.ctx.db.posts.find({ channelId: new Types.ObjectId(org.channelId) }).lean();
    const dates = posts.map((post) => post.publishDate.toISOString());
    expect(dates).toHaveLength(6);
    expect(new Set(dates).size).toBe(6);
  });

  it('queues after `date` when one is given, and keeps `schedule` as it was', async () => {
    const org = await organization();
    await setSchedule(org.apiKey, org.channelId, 'Asia/Kolkata', everyDay('09:00'));
    const from = Date.now() + 10 * 86_400_000;
    const queued = await createPosts(org.apiKey, { type: 'queue', date: new Date(from).toISOString() }, [
      [org.channelId, 'later'],
    ]);
    expect(queued.status).toBe(201);
    const [post] = created.parse(queued.body);
    const stored = await world.ctx.db.posts.findById(post?.postId).lean();
    expect(stored?.publishDate.toISOString()).toBe(localSlots('Asia/Kolkata', from, ['09:00'], 1)[0]);

    const date = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await createPosts(org.apiKey, { type: 'schedule', date }, [[org.channelId, 'at a time']]);
    const [scheduledPost] = created.parse(scheduled.body);
    expect((await world.ctx.db.posts.findById(scheduledPost?.postId).lean())?.publishDate.toISOString()).toBe(date);
  });

  it('answers 400 for a malformed zone, time or weekday, 422 for a zone the IANA database lacks', async () => {
    const org = await organization();
    const unknown = await putSchedule(org.apiKey, org.channelId, { timeZone: 'Mars/Olympus_Mons', postingSlots: [] });
    expectError(unknown, 422, 'unknown_time_zone');
    expect(unknown.body).toMatchObject({ details: [{ path: 'timeZone' }] });
    // An offset is no place: it has no daylight-saving rules (Node 24's Intl accepts it as a zone).
    const offset = await putSchedule(org.apiKey, org.channelId, { timeZone: '+0200', postingSlots: [] });
    expectError(offset, 422, 'unknown_time_zone');

    const twice = [{ weekday: 1, time: '09:00' }, { weekday: 1, time: '09:00' }];
    const cases: [unknown, string][] = [
      [{ timeZone: 'Europe/Berlin', postingSlots: [{ weekday: 1, time: '24:00' }] }, 'postingSlots.0.time'],
      [{ timeZone: 'Europe/Berlin', postingSlots: [{ weekday: 1, time: '9:00' }] }, 'postingSlots.0.time'],
      [{ timeZone: 'Europe/Berlin', postingSlots: [{ weekday: 0, time: '09:00' }] }, 'postingSlots.0.weekday'],
      [{ timeZone: 'Europe/Berlin', postingSlots: twice }, 'postingSlots.1'],
      [{ timeZone: 'Europe Berlin', postingSlots: [] }, 'timeZone'],
      [{ timeZone: '+02:00', postingSlots: [] }, 'timeZone'],
      [{ postingSlots: [] }, 'timeZone'],
      [{ timeZone: 'UTC' }, 'postingSlots'],
    ];
    for (const [body, path] of cases) {
      const response = await putSchedule(org.apiKey, org.channelId, body);
      expectError(response, 400, 'validation_failed');
      expect((response.body as { details: { path: string }[] }).details.map((detail) => detail.path)).toContain(path);
    }
    // Nothing refused was stored.
    const kept = await call(org.apiKey, `/integrations/${org.channelId}/schedule`);
    expect(scheduleAnswer.parse(kept.body).timeZone).toBe('UTC');
  });

  it('answers 404 for another organization\'s or an unknown channel, and 409 when the queue has no slot', async () => {
    const org = await organization();
    const stranger = await organization();
    const body = { timeZone: 'UTC', postingSlots: [] };
    expectError(await putSchedule(org.apiKey, stranger.channelId, body), 404, 'not_found');
    expectError(await call(org.apiKey, `/integrations/${new Types.ObjectId().toString()}/schedule`), 404, 'not_found');

    expect((await putSchedule(org.apiKey, org.channelId, body)).status).toBe(200);
    expectError(await call(org.apiKey, `/find-slot/${org.channelId}`), 409, 'conflict');
    const postsBefore = await world.ctx.db.posts.countDocuments({ channelId: new Types.ObjectId(org.channelId) });
    const queued = await createPosts(org.apiKey, { type: 'queue' }, [[org.channelId, 'nowhere']]);
    expectError(queued, 409, 'conflict');
    expect(await world.ctx.db.posts.countDocuments({ channelId: new Types.ObjectId(org.channelId) })).toBe(postsBefore);
  });
});
