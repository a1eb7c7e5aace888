import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, newAccount } from './dashboard-client.ts';
import { notify } from '../../shared/domain/notifications/notifications.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

/** What the dashboard's pages show, for one signed-in user, over HTTP. */
describe('dashboard pages', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let user: DashboardClient;
  let organizationId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    user = new DashboardClient(stack.baseUrl);
    const account = { ...newAccount('pages'), organization: '<script>alert(1)</script> & Co' };
    await user.signUp(account);
    const stored = await ctx.db.users.findOne({ email: account.email }).lean();
    organizationId = stored?.organizationIds[0]?.toString() ?? '';
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const count = (html: string, pattern: RegExp): number => html.match(new RegExp(pattern.source, 'g'))?.length ?? 0;

  async function addChannel(name: string, owner = organizationId): Promise<string> {
    const channel = await ctx.db.channels.create({ organizationId: new Types.ObjectId(owner), provider: 'mastodon', name, instanceUrl: 'https://mastodon.example', tokenSealed: ctx.secrets.seal('token') });
    return channel._id.toString();
  }

  it('escapes what users typed and sends protective headers with every page', async () => {
    const settings = await user.get('/settings');
    expect(settings.status).toBe(200);
    expect(settings.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(settings.html).not.toContain('<script>alert(1)');
    const policy = settings.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(policy)?.[1];
    expect(settings.html).toContain(`<script nonce="${nonce ?? 'missing'}" src="/assets/`);
    expect(settings.html).not.toMatch(/<script(?![^>]*\bnonce=)(?![^>]*type="application\/json")[^>]*>/);
    expect(policy).toContain("default-src 'none'");
    expect(settings.headers.get('cache-control')).toBe('no-store');
    expect(settings.headers.get('x-frame-options')).toBe('DENY');
  });

  it('lists channels and disconnects one; another organization\'s channel is a 404 page', async () => {
    const channelId = await addChannel('Kept <b>bold</b>');
    const foreignId = await addChannel('Not ours', new Types.ObjectId().toString());
    const page = await user.get('/channels');
    expect(page.html).toContain('Kept &lt;b&gt;bold&lt;/b&gt;');
    expect(page.html).not.toContain('Not ours');
    expect(page.html).toContain('href="/channels/connect/bluesky"');

    const foreign = await user.post(`/channels/${foreignId}/disconnect`, {});
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await ctx.db.channels.findById(foreignId).lean())?.deletedAt ?? null).toBeNull();
    expect((await user.post(`/channels/${channelId}/disconnect`, {})).location).toBe('/channels');
    expect((await user.get('/channels')).html).toContain('No channels are connected');
  });

  it('draws each channel\'s first counter over the last 30 days as a small SVG chart', async () => {
    const channelId = await addChannel('Charted');
    await addChannel('Not gathered yet');
    const subjectId = new Types.ObjectId(channelId);
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    await ctx.db.analyticsDays.insertMany([40, 10, 0].map((daysAgo, index) => ({
      organizationId: new Types.ObjectId(organizationId), channelId: subjectId, subject: 'channel', subjectId,
      day: day(daysAgo), counters: [{ label: 'Followers', value: [5, 100, 150][index] ?? 0 }], fetchedAt: new Date(),
    })));
    const page = await user.get('/channels');
    const row = (name: string) => page.html.split('<tr>').find((candidate) => candidate.includes(name)) ?? '';
    const charted = row('Charted');
    // The 40-day-old reading is outside the chart; the other two make the line and the +50% change.
    expect(charted).toContain(`aria-label="Followers: ${day(10)}: 100, ${day(0)}: 150"`);
    expect(charted).toMatch(/<polyline [^>]*points="3\.0,37\.0 157\.0,3\.0"/);
    expect(charted).toContain('Followers 150 <span class="muted">(+50%)</span>');
    expect(row('Not gathered yet')).toContain('none yet');
  });

  it('asks a federated platform for the user\'s server, and 404s an unknown platform', async () => {
    const mastodon = await user.get('/channels/connect/mastodon');
    expect(mastodon.status).toBe(200);
    expect(mastodon.html).toContain('action="/channels/connect/mastodon/start"');
    expect(mastodon.html).toContain('Your Mastodon server');
    const unknown = await user.get('/channels/connect/myspace');
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('&quot;myspace&quot;');
  });

  it('warns before connecting a platform that would fetch media from this server\'s private address', async () => {
    for (const provider of ['instagram', 'threads']) {
      const page = await user.get(`/channels/connect/${provider}`);
      expect(page.status).toBe(200);
      expect(page.html).toContain('serves them at a private address (UPLOADS_PUBLIC_URL)');
    }
    expect((await user.get('/channels/connect/mastodon')).html).not.toContain('UPLOADS_PUBLIC_URL');
  });

  it('pages notifications 100 at a time, newest first', async () => {
    for (let index = 0; index < 150; index += 1) await notify(ctx.db, organizationId, { content: `Notice number ${index}`, link: index === 149 ? 'javascript:alert(1)' : null });
    const first = await user.get('/notifications');
    expect(count(first.html, /<li><time/)).toBe(100);
    expect(first.html).toContain('Page 1 of 2');
    expect(first.html).toContain('href="/notifications?page=2"');
    expect(first.html).not.toContain('javascript:');
    const second = await user.get('/notifications?page=2');
    expect(count(second.html, /<li><time/)).toBe(50);
    expect(second.html).toContain('href="/notifications?page=1"');
    expect(second.html).not.toContain('page=3');
    for (const page of ['0', 'abc', '-1', '1.5']) {
      const refused = await user.get(`/notifications?page=${page}`);
      expect(refused.status, page).toBe(400);
      expect(refused.html, page).toContain('The page number must be a whole number from 1.');
    }
  });

  it('lists posts of the current month by default, and of any range asked for', async () => {
    const channelId = await addChannel('Posting channel');
    const now = new Date();
    const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 12));
    const earlier = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 10, 12));
    for (const [content, publishDate] of [['This month\'s post', thisMonth], ['An older post', earlier]] as const) {
      await ctx.db.posts.create({ organizationId: new Types.ObjectId(organizationId), channelId: new Types.ObjectId(channelId), group: content, position: 0, content, publishDate, state: 'QUEUE' });
    }
    const current = await user.get('/posts');
    expect(current.html).toContain('This month&#39;s post');
    expect(current.html).not.toContain('An older post');
    expect(current.html).toContain(`value="${thisMonth.toISOString().slice(0, 10)}"`);
    const day = earlier.toISOString().slice(0, 10);
    const older = await user.get(`/posts?from=${day}&to=${day}`);
    expect(older.html).toContain('An older post');
    expect(older.html).not.toContain('This month');
    for (const [query, message] of [
      ['from=2025-02-30', '&quot;from&quot; must be a date written as YYYY-MM-DD'],
      ['from=2020-01-01&to=2024-01-01', 'The date range may span at most 366 days'],
      ['from=2024-02-01&to=2024-01-01', 'endDate must not be before startDate'],
    ]) {
      const refused = await user.get(`/posts?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.html, query).toContain(message);
    }
  });

  it('registers the OAuth app with readable refusals, shows the secret once, edits it', async () => {
    await user.get('/oauth-app');
    const refused = await user.post('/oauth-app', { name: 'My <App>', description: '', picture_url: '', redirect_url: 'http://example.com/callback' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('https');
    expect(refused.html).toContain('value="My &lt;App&gt;"');

    const created = await user.post('/oauth-app', { name: 'My <App>', description: 'Does things', picture_url: '', redirect_url: 'https://app.example/callback' });
    expect(created.status).toBe(201);
    const secret = /id="client-secret" class="secret">(pcs_[^<]+)</.exec(created.html)?.[1];
    expect(secret).toMatch(/^pcs_/);
    expect(created.html).toMatch(/id="client-id" class="secret">pca_[0-9a-f]{32}</);
    const again = await user.get('/oauth-app');
    expect(again.html).not.toContain(secret ?? 'missing');
    const second = await user.post('/oauth-app', { name: 'Second', redirect_url: 'https://app.example/2' });
    expect(second.status).toBe(409);
    expect(second.html).toContain('This organization already has an OAuth app; edit it or delete it first.');
    expect(await ctx.db.oauthApps.countDocuments({ organizationId: new Types.ObjectId(organizationId) })).toBe(1);

    const appId = /name="app_id" value="([0-9a-f]{24})"/.exec(again.html)?.[1] ?? '';
    expect((await user.post('/oauth-app/edit', { app_id: appId, name: 'Renamed', description: '', picture_url: '', redirect_url: 'https://app.example/callback' })).location).toBe('/oauth-app?saved=1');
    expect((await user.get('/oauth-app?saved=1')).html).toContain('Renamed');
    const unknown = await user.post('/oauth-app/edit', {
      app_id: new Types.ObjectId().toString(), name: 'X', redirect_url: 'https://app.example/x',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('was not found');
    expect((await user.get('/oauth-app')).html).toContain('Renamed');
  });

  it('answers unknown pages with an HTML 404 and leaves the API\'s JSON 404 alone', async () => {
    const page = await user.get('/no-such-page');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.html).toContain('There is no page at this address.');
    const apiMiss = await fetch(`${stack.baseUrl}/api/no-such-route`);
    expect(apiMiss.status).toBe(404);
    expect(apiMiss.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await apiMiss.json()).toEqual({
      statusCode: 404, error: 'not_found', message: 'no route for GET /api/no-such-route',
    });
  });
});
