import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';
import { waitFor } from '../../../test/support/stack.ts';
import { feedEventSchema, listEventsResponse } from './schema.ts';

const prefix = '/api/public/v1';

interface FeedEvent {
  cursor: string;
  id: string;
  type: string;
  organizationId: string;
  data: Record<string, unknown>;
}
interface EventPage {
  events: FeedEvent[];
  cursor: string | null;
  hasMore: boolean;
}

/**
 * GET /events through the whole stack: post.created, post.updated and post.deleted as the api
 * emits them, read back a page at a time with the cursor, and only by their organization.
 */
describe('GET /events', () => {
  const world = useSimulatedStack({ workers: false });

  async function organization() {
    const token = world.simulator.addAccount(`events${Math.random().toString(36).slice(2, 8)}`);
    return organizationWithMastodon(world.ctx, world.simulator.origin, token);
  }

  async function readEvents(apiKey: string, query = ''): Promise<EventPage> {
    const answer = await api(world.stack.baseUrl, apiKey, `${prefix}/events${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    // The documented shape, every event's data included.
    return listEventsResponse.parse(answer.body) as EventPage;
  }

  /** The organization's events once `count` are readable (events show a few seconds after they happen). */
  function eventsOnceThere(apiKey: string, count: number): Promise<FeedEvent[]> {
    return waitFor(async () => {
      const page = await readEvents(apiKey, '?limit=100');
      return page.events.length >= count ? page.events : undefined;
    }, { what: `${count} events`, timeoutMs: 20_000 });
  }

  async function schedule(org: { apiKey: string; channelId: string }, content: string, id?: string) {
    const answer = await api(world.stack.baseUrl, org.apiKey, `${prefix}/posts`, {
      method: 'POST',
      body: {
        type: 'schedule', date: '2035-01-01T10:00:00.000Z',
        posts: [{ integration: { id: org.channelId }, value: [{ content, ...(id === undefined ? {} : { id }) }] }],
      },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return (answer.body as { postId: string }[])[0]?.postId ?? '';
  }

  it('tells a post\'s creation, edit, draft and deletion, in order, with the post in each', async () => {
    const org = await organization();
    const postId = await schedule(org, 'First words');
    await schedule(org, 'Second words', postId);
    const drafted = await api(world.stack.baseUrl, org.apiKey, `${prefix}/posts/${postId}/status`, {
      method: 'PUT', body: { status: 'draft' },
    });
    expect(drafted.status).toBe(200);
    const deleted = await api(world.stack.baseUrl, org.apiKey, `${prefix}/posts/${postId}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);

    const events = await eventsOnceThere(org.apiKey, 4);
    expect(events.map((event) => event.type)).toEqual(['post.created', 'post.updated', 'post.updated', 'post.deleted']);
    for (const event of events) {
      expect(feedEventSchema.safeParse(event).success).toBe(true);
      expect(event).toMatchObject({
        organizationId: org.organizationId,
        data: { postId, channelId: org.channelId, provider: 'mastodon', publishDate: '2035-01-01T10:00:00.000Z' },
      });
      expect(event.id).toBe(`evt_${event.cursor}`);
    }
    expect(events.map((event) => event.data.state)).toEqual(['QUEUE', 'QUEUE', 'DRAFT', 'DRAFT']);
    expect(events[3]?.data.deletedAt).toEqual(expect.any(String));
    // The same event rows back the webhook deliveries: one row per event, whether or not anyone subscribed.
    expect(await world.ctx.db.events.countDocuments({ organizationId: org.organizationId })).toBe(4);
  });

  it('pages with the cursor, oldest first, and answers the given cursor when nothing is new', async () => {
    const org = await organization();
    for (const content of ['one', 'two', 'three', 'four', 'five']) await schedule(org, content);
    const all = await eventsOnceThere(org.apiKey, 5);

    const first = await readEvents(org.apiKey, '?limit=2');
    expect(first.events.map((event) => event.cursor)).toEqual(all.slice(0, 2).map((event) => event.cursor));
    expect(first).toMatchObject({ hasMore: true, cursor: all[1]?.cursor });
    const second = await readEvents(org.apiKey, `?limit=2&after=${first.cursor ?? ''}`);
    expect(second.events.map((event) => event.cursor)).toEqual(all.slice(2, 4).map((event) => event.cursor));
    const last = await readEvents(org.apiKey, `?limit=2&after=${second.cursor ?? ''}`);
    expect(last.events.map((event) => event.data.postId)).toEqual([all[4]?.data.postId]);
    expect(last).toMatchObject({ hasMore: false, cursor: all[4]?.cursor });
    const none = await readEvents(org.apiKey, `?after=${last.cursor ?? ''}`);
    expect(none).toEqual({ events: [], cursor: last.cursor, hasMore: false });
    const contents = await Promise.all(all.map(async (event) =>
      (await world.ctx.db.posts.findById(event.data.postId).lean())?.content));
    expect(contents).toEqual(['one', 'two', 'three', 'four', 'five']);
  });

  it('shows an organization only its own events', async () => {
    const org = await organization();
    await schedule(org, 'Ours only');
    const ours = await eventsOnceThere(org.apiKey, 1);
    const stranger = await createOrganization(world.ctx.db, world.ctx.secrets, { name: 'Stranger' });
    const theirs = await readEvents(stranger.apiKey);
    expect(theirs).toEqual({ events: [], cursor: null, hasMore: false });
    // Even after a cursor of ours.
    const after = await readEvents(stranger.apiKey, `?after=${'0'.repeat(24)}`);
    expect(after.events).toEqual([]);
    expect(ours.every((event) => event.organizationId === org.organizationId)).toBe(true);
  });

  it('answers 400 validation_failed for a cursor or a limit it cannot use', async () => {
    const org = await organization();
    for (const query of ['?after=nope', '?after=665f1c2e9b1d4a00123456789', '?limit=0', '?limit=101', '?limit=x']) {
      const answer = await api(world.stack.baseUrl, org.apiKey, `${prefix}/events${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({ error: 'validation_failed', message: expect.any(String) as string });
    }
  });
});
