import { Types } from 'mongoose';
import { describe, expect, it, beforeAll } from 'vitest';
import { DashboardClient, newAccount } from './dashboard-client.ts';
import { api } from '../support/fixtures.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { createApiKey } from '../../shared/domain/api-keys/api-keys.ts';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { updateThread } from '../../shared/db/equality-queries.ts';

const hourMs = 3_600_000;

/** The post page, the move, retry and delete forms, and the calendar's JSON, over HTTP. */
describe('dashboard post page and calendar', () => {
  const world = useSimulatedStack({ workers: false });
  let client: DashboardClient;
  let organizationId = '';
  let channelId = '';
  let apiKey = '';

  beforeAll(async () => {
    client = new DashboardClient(world.stack.baseUrl);
    const account = newAccount('postpage');
    await client.signUp(account);
    const stored = await world.ctx.db.users.findOne({ email: account.email }).lean();
    organizationId = stored?.organizationIds[0]?.toString() ?? '';
    const token = world.simulator.addAccount('postpage');
    ({ id: channelId } = await addTokenChannel(world.ctx.db, world.ctx.secrets, { allowPrivateNetwork: true }, {
      organizationId, provider: 'mastodon', name: 'Our <Mastodon>', instanceUrl: world.simulator.origin, token,
    }));
    ({ secret: apiKey } = await createApiKey(world.ctx.db, world.ctx.secrets, organizationId, {
      name: 'tests', scopes: ['posts'], expiresAt: null,
    }, new Date()));
  });

  async function schedule(content: string, at: Date): Promise<string> {
    const answer = await api(world.stack.baseUrl, apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'schedule', date: at.toISOString(), posts: [{ integration: { id: channelId }, value: [{ content }] }],
      },
    });
    expect(answer.status).toBe(201);
    return (answer.body as { postId: string }[])[0]?.postId ?? '';
  }

  async function failed(content: string): Promise<string> {
    const id = await schedule(content, new Date(Date.now() + hourMs));
    await world.stack.publishQueue.remove(`post-${id}`);
    await updateThread(world.ctx.db.posts, new Types.ObjectId(id), {}, {
      $set: {
        state: 'ERROR', error: 'the instance refused the token', failureCategory: 'auth',
        attempts: [{ at: new Date(), category: 'auth', message: 'HTTP 401 from the instance', httpStatus: 401 }],
      },
    });
    return id;
  }

  it('tells a post\'s story: channel, state, parts, attempts with their category, its actions', async () => {
    const scheduled = await schedule('Tomorrow <b>morning</b>', new Date(Date.now() + 24 * hourMs));
    const page = await client.get(`/posts/${scheduled}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Tomorrow &lt;b&gt;morning&lt;/b&gt;');
    expect(page.html).toContain('Our &lt;Mastodon&gt;');
    expect(page.html).toContain(`action="/posts/${scheduled}/move"`);
    expect(page.html).toContain(`action="/posts/${scheduled}/delete"`);
    expect(page.html).not.toContain(`action="/posts/${scheduled}/retry"`);

    const broken = await failed('Will fail');
    const failedPage = await client.get(`/posts/${broken}`);
    expect(failedPage.html).toContain('Failed (auth): the instance refused the token');
    expect(failedPage.html).toContain('HTTP 401 from the instance');
    expect(failedPage.html).toContain(`action="/posts/${broken}/retry"`);
    expect(failedPage.html).not.toContain(`action="/posts/${broken}/move"`);
  });

  it('answers another organization\'s post, a malformed id and an unknown one with a 404 page', async () => {
    const other = await world.ctx.db.posts.create({
      organizationId: new Types.ObjectId(), channelId: new Types.ObjectId(), content: 'Not ours', group: 'g',
      publishDate: new Date(), state: 'QUEUE', position: 0,
    });
    const id = other._id.toString();
    for (const path of [`/posts/${id}`, '/posts/not-an-id', `/posts/${new Types.ObjectId().toString()}`]) {
      const page = await client.get(path);
      expect(page.status).toBe(404);
      expect(page.html).not.toContain('Not ours');
    }
    await client.get('/calendar');
    expect((await client.post(`/posts/${id}/move`, { publish_at: '2099-01-01T10:00' })).status).toBe(404);
    expect((await client.post(`/posts/${id}/delete`, {})).status).toBe(404);
    expect((await client.post(`/posts/${id}/retry`, {})).status).toBe(404);
    expect((await world.ctx.db.posts.findById(id).lean())?.deletedAt ?? null).toBeNull();
  });

  it('refuses every action without the form\'s CSRF token', async () => {
    const id = await schedule('Guarded', new Date(Date.now() + 5 * hourMs));
    for (const action of ['move', 'delete', 'retry']) {
      const answer = await client.post(`/posts/${id}/${action}`, { publish_at: '2099-01-01T10:00' }, { csrf: null });
      expect(answer.status).toBe(403);
      expect(answer.html).toContain('Form expired');
    }
    const stored = await world.ctx.db.posts.findById(id).lean();
    expect(stored?.deletedAt ?? null).toBeNull();
    expect(stored?.publishDate.getTime()).toBeGreaterThan(Date.now());
  });

  it('moves a scheduled post and its job; bad times are a 400 page naming the problem', async () => {
    const id = await schedule('To move', new Date(Date.now() + 2 * hourMs));
    await client.get(`/posts/${id}`);
    const target = new Date(Date.now() + 72 * hourMs);
    target.setUTCSeconds(0, 0);
    const moved = await client.post(`/posts/${id}/move`, { publish_at: target.toISOString().slice(0, 16) });
    expect(moved.status).toBe(302);
    expect(moved.location).toBe(`/posts/${id}`);
    expect((await world.ctx.db.posts.findById(id).lean())?.publishDate.toISOString()).toBe(target.toISOString());
    const job = await world.stack.publishQueue.getJob(`post-${id}`);
    const due = (job?.timestamp ?? 0) + (job?.opts.delay ?? 0);
    expect(Math.abs(due - target.getTime())).toBeLessThan(5_000);

    for (const [value, problem] of [
      ['tomorrow', 'write the date and time as YYYY-MM-DDTHH:MM'],
      ['2020-01-01T10:00', 'choose a time in the future'],
      ['2099-02-30T10:00', 'is not a date and time that exists'],
    ] as const) {
      const refused = await client.post(`/posts/${id}/move`, { publish_at: value });
      expect(refused.status).toBe(400);
      expect(refused.html.toLowerCase()).toContain(problem.toLowerCase());
    }
    const missing = await client.post(`/posts/${id}/move`, {});
    expect(missing.status).toBe(400);
    expect((await world.ctx.db.posts.findById(id).lean())?.publishDate.toISOString()).toBe(target.toISOString());

    // The calendar's drag asks for JSON, with the token in a header.
    const again = new Date(target.getTime() + 24 * hourMs);
    const dragged = await fetch(`${world.stack.baseUrl}/posts/${id}/move`, {
      method: 'POST',
      headers: {
        Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded', 'X-CSRF-Token': client.csrf,
        Cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
      body: new URLSearchParams({ publish_at: again.toISOString() }).toString(),
    });
    expect(dragged.status).toBe(200);
    expect(await dragged.json()).toEqual({ id, publishDate: again.toISOString() });
  });

  it('refuses to move a post that is not scheduled, with the reason', async () => {
    const id = await failed('Failed, not movable');
    await client.get(`/posts/${id}`);
    const refused = await client.post(`/posts/${id}/move`, { publish_at: '2099-01-01T10:00' });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('Only a scheduled post can be moved; this one is error');
  });

  it('retries a failed post: its parts go back to the queue with a job; a second retry is refused', async () => {
    const id = await failed('Retry me');
    await client.get(`/posts/${id}`);
    const retried = await client.post(`/posts/${id}/retry`, {});
    expect(retried.location).toBe(`/posts/${id}`);
    expect((await world.ctx.db.posts.findById(id).lean())?.state).toBe('QUEUE');
    expect(await world.stack.publishQueue.getJob(`post-${id}`)).toBeDefined();
    const again = await client.post(`/posts/${id}/retry`, {});
    expect(again.status).toBe(409);
  });

  it('deletes a post in SPS only, and refuses a malformed choice', async () => {
    const id = await schedule('Delete me', new Date(Date.now() + 6 * hourMs));
    await client.get(`/posts/${id}`);
    const refused = await client.post(`/posts/${id}/delete`, { on_platform: 'maybe' });
    expect(refused.status).toBe(400);
    const deleted = await client.post(`/posts/${id}/delete`, {});
    expect(deleted.location).toBe('/posts');
    expect((await world.ctx.db.posts.findById(id).lean())?.deletedAt).not.toBeNull();
    expect(await world.stack.publishQueue.getJob(`post-${id}`)).toBeUndefined();
    expect((await client.get(`/posts/${id}`)).status).toBe(404);
  });

  it('offers "also delete on the platform" where the platform can, and shows the removal once asked', async () => {
    const id = await schedule('Published already', new Date(Date.now() + 7 * hourMs));
    await world.stack.publishQueue.remove(`post-${id}`);
    await updateThread(world.ctx.db.posts, new Types.ObjectId(id), {}, {
      $set: { state: 'PUBLISHED', releaseId: '1234', releaseURL: 'https://mastodon.example/@us/1234' },
    });
    const page = await client.get(`/posts/${id}`);
    expect(page.html).toContain('Also delete it on the platform (delete)');
    expect(page.html).toContain('href="https://mastodon.example/@us/1234"');
    const deleted = await client.post(`/posts/${id}/delete`, { on_platform: 'yes' });
    expect(deleted.location).toBe(`/posts/${id}`);
    const after = await client.get(`/posts/${id}`);
    expect(after.status).toBe(200);
    expect(after.html).toContain('Removal from the platform');
    expect(after.html).toMatch(/<th scope="row">Post<\/th>\s*<td>queued <span class="muted">\(delete\)<\/span>/);
    expect(after.html).not.toContain(`action="/posts/${id}/delete"`);
  });

  it('draws a published post\'s analytics once the workers gathered some', async () => {
    const id = await schedule('Counted', new Date(Date.now() + 8 * hourMs));
    await world.stack.publishQueue.remove(`post-${id}`);
    const rootId = new Types.ObjectId(id);
    await updateThread(world.ctx.db.posts, rootId, {}, { $set: { state: 'PUBLISHED', releaseId: '777' } });
    expect((await client.get(`/posts/${id}`)).html).not.toContain('Analytics, last 7 days');
    const today = new Date().toISOString().slice(0, 10);
    await world.ctx.db.analyticsDays.create({
      organizationId: new Types.ObjectId(organizationId), channelId: new Types.ObjectId(channelId), subject: 'post',
      subjectId: rootId, day: today, counters: [{ label: 'Favourites', value: 12 }], fetchedAt: new Date(),
    });
    const page = await client.get(`/posts/${id}`);
    expect(page.html).toContain('Analytics, last 7 days');
    expect(page.html).toContain(`aria-label="Favourites: ${today}: 12"`);
  });

  it('serves the calendar with FullCalendar under a CSP whose style-src takes the page nonce', async () => {
    const page = await client.get('/calendar');
    expect(page.status).toBe(200);
    const policy = page.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(policy)?.[1] ?? 'missing';
    expect(policy).toContain(`style-src 'self' 'nonce-${nonce}'`);
    expect(page.html).toMatch(/<script nonce="([^"]+)" src="\/assets\/[^/]+\/fullcalendar\.min\.js"/);
    expect(page.html).toContain(`<script nonce="${nonce}" src="/assets/`);
    expect(page.html).toContain('data-events="/calendar/events"');
    // Other pages keep a style-src without a nonce.
    expect((await client.get('/posts')).headers.get('content-security-policy')).toContain("style-src 'self';");
    const filtered = await client.get(`/calendar?state=failed&channel=${channelId}`);
    expect(filtered.html).toContain(`data-events="/calendar/events?channel=${channelId}&amp;state=failed"`);
    expect((await client.get('/calendar?state=lost')).status).toBe(400);
  });

  it('answers the calendar\'s events as JSON: the range, the filters, the organization\'s posts only', async () => {
    const soon = await schedule('In the range', new Date(Date.now() + 3 * hourMs));
    const broken = await failed('Failed in the range');
    const start = new Date(Date.now() - 24 * hourMs).toISOString();
    const end = new Date(Date.now() + 96 * hourMs).toISOString();
    const events = async (query: Record<string, string>) => {
      const answer = await client.get(`/calendar/events?${new URLSearchParams({ start, end, ...query }).toString()}`);
      return { status: answer.status, body: JSON.parse(answer.html) as unknown };
    };
    const all = await events({});
    expect(all.status).toBe(200);
    const listed = all.body as { id: string; startEditable: boolean; url: string; extendedProps: { state: string } }[];
    expect(listed.find((event) => event.id === soon)).toMatchObject({ startEditable: true, url: `/posts/${soon}` });
    expect(listed.find((event) => event.id === broken)).toMatchObject({
      startEditable: false, extendedProps: { state: 'failed', error: 'the instance refused the token' },
    });
    // Another organization's post of the range (made by the 404 test above) is not among them.
    expect(JSON.stringify(listed)).not.toContain('Not ours');
    const published = listed.filter((event) => event.extendedProps.state === 'published');
    expect(published.length).toBeGreaterThan(0);
    expect(published.every((event) => !event.startEditable)).toBe(true);
    const onlyFailed = (await events({ state: 'failed' })).body as { extendedProps: { state: string } }[];
    expect(onlyFailed.length).toBeGreaterThan(0);
    expect(onlyFailed.every((event) => event.extendedProps.state === 'failed')).toBe(true);
    expect((await events({ channel: new Types.ObjectId().toString() })).body).toEqual([]);
    expect((await events({ customer: new Types.ObjectId().toString() })).body).toEqual([]);

    const tooLong = await events({ end: new Date(Date.now() + 400 * 24 * hourMs).toISOString() });
    expect(tooLong).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect((await events({ start: 'yesterday' })).status).toBe(400);
    expect((await events({ channel: 'x' })).status).toBe(400);
    const anonymousUrl = `${world.stack.baseUrl}/calendar/events?start=${start}&end=${end}`;
    const anonymous = await fetch(anonymousUrl, { redirect: 'manual' });
    expect(anonymous.status).toBe(302);
  });
});
