import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, newAccount, type PageAnswer } from '../browser/dashboard-client.ts';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { api } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

/** The channel id the dashboard names when it sends the user back to the channel list. */
function connectedChannelId(answer: PageAnswer): string {
  const id = /^\/channels\?connected=([0-9a-f]{24})$/.exec(answer.location ?? '')?.[1];
  if (id === undefined) {
    throw new Error(`expected a redirect to the channels, got ${String(answer.status)}: ${answer.html.slice(0, 500)}`);
  }
  return id;
}

/**
 * Issue 30, item 3: a signed-in victim follows an attacker's link, and the attacker's Mastodon
 * server answers `verify_credentials` with the victim's account id. Neither the link nor that
 * server may touch the victim's channel: starting a connect takes the dashboard's CSRF token, and
 * an account on a server the user names is that id on that server, never another server's.
 */
describe('a connect link or another server cannot take over a channel', () => {
  const victimServer = new MastodonSimulator();
  const attackerServer = new MastodonSimulator();
  let ctx: TestContext;
  let stack: RunningStack;
  let victim: DashboardClient;
  let frontendUrl = '';

  beforeAll(async () => {
    await Promise.all([victimServer.start(), attackerServer.start()]);
    // Each server's first user has id "1": the attacker's own account carries the victim's id.
    victimServer.apps.consentingUser = 'alice';
    attackerServer.apps.consentingUser = 'mallory';
    const port = await freePort();
    frontendUrl = `http://127.0.0.1:${String(port)}`;
    // X is configured with an app of the operator's, whose secret must never reach another server.
    ctx = await createTestContext({
      FRONTEND_URL: frontendUrl,
      X_CLIENT_ID: 'operator-x-client',
      X_CLIENT_SECRET: 'operator-x-secret',
    });
    stack = await startStack(ctx, { workers: false, port });
    victim = new DashboardClient(stack.baseUrl);
    expect((await victim.signUp(newAccount('hijack-victim'))).status).toBe(302);
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await Promise.all([victimServer.stop(), attackerServer.stop()]);
  });

  const attempts = () => ctx.db.connectAttempts.countDocuments({});

  /** The dashboard's Mastodon form, posted with the page's CSRF token; answers the start's reply. */
  async function startMastodon(server: MastodonSimulator, refresh: string | null = null): Promise<PageAnswer> {
    const page = await victim.get(`/channels/connect/mastodon${refresh === null ? '' : `?refresh=${refresh}`}`);
    expect(page.status).toBe(200);
    const fields = { instance: server.origin, ...(refresh === null ? {} : { refresh }) };
    return victim.post('/channels/connect/mastodon/start', fields);
  }

  /** The server's consent page approves at once; the victim's browser brings its answer back. */
  async function consentAndReturn(start: PageAnswer): Promise<PageAnswer> {
    expect(start.status, start.html.slice(0, 500)).toBe(302);
    const consent = await fetch(start.location ?? '', { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(`${frontendUrl}/channels/callback/mastodon`);
    return victim.get(`${back.pathname}${back.search}`);
  }

  it('starts nothing when a signed-in user follows a plain link to the start URL', async () => {
    const before = { attempts: await attempts(), registrations: attackerServer.apps.registrations };
    const link = `/channels/connect/mastodon/start?instance=${encodeURIComponent(attackerServer.origin)}`;
    const mastodon = await victim.get(link);
    expect(mastodon.status).toBe(200);
    expect(mastodon.location).toBeNull();
    // The page shows the form whose button, with the CSRF token, is the only way to start.
    expect(mastodon.html).toMatch(/<form method="post" action="\/channels\/connect\/mastodon\/start">/);
    expect(mastodon.html).toContain('name="_csrf"');

    const x = await victim.get('/channels/connect/x/start');
    expect(x.status).toBe(200);
    expect(x.location).toBeNull();

    expect(await attempts()).toBe(before.attempts);
    expect(attackerServer.apps.registrations).toBe(before.registrations);
  });

  it('refuses to start from a form posted without the CSRF token', async () => {
    const before = await attempts();
    const forged = await victim.post(
      '/channels/connect/mastodon/start',
      { instance: attackerServer.origin },
      { csrf: null },
    );
    expect(forged.status).toBe(403);
    expect(await attempts()).toBe(before);
  });

  it('keeps the victim\'s channel when the attacker\'s server answers with the victim\'s account id', async () => {
    const victimChannelId = connectedChannelId(await consentAndReturn(await startMastodon(victimServer)));
    const before = await ctx.db.channels.findById(victimChannelId).lean();
    expect(before?.instanceUrl).toBe(victimServer.origin);

    const attackerChannelId = connectedChannelId(await consentAndReturn(await startMastodon(attackerServer)));
    const attackerChannel = await ctx.db.channels.findById(attackerChannelId).lean();
    // The same id from another server is another account: a channel of its own on that server.
    expect(attackerChannel?.accountId).toBe(before?.accountId);
    expect(attackerChannelId).not.toBe(victimChannelId);
    expect(attackerChannel?.instanceUrl).toBe(attackerServer.origin);

    const after = await ctx.db.channels.findById(victimChannelId).lean();
    expect(after?.instanceUrl).toBe(victimServer.origin);
    expect(after?.tokenSealed).toBe(before?.tokenSealed);
  });

  it('refuses a reconnect of the victim\'s channel through another server (?refresh=)', async () => {
    const victimChannel = await ctx.db.channels.findOne({ instanceUrl: victimServer.origin }).lean();
    const victimChannelId = victimChannel?._id.toString() ?? '';
    const channelsBefore = await ctx.db.channels.countDocuments({});

    const refused = await startMastodon(attackerServer, victimChannelId);
    expect(refused.status).toBe(409);
    expect(refused.html).toContain(`lives on ${victimServer.origin}`);

    const after = await ctx.db.channels.findById(victimChannelId).lean();
    expect(after?.instanceUrl).toBe(victimServer.origin);
    expect(after?.tokenSealed).toBe(victimChannel?.tokenSealed);
    expect(await ctx.db.channels.countDocuments({})).toBe(channelsBefore);
  });

  it('still reconnects the victim\'s channel in place from its own server', async () => {
    const victimChannel = await ctx.db.channels.findOne({ instanceUrl: victimServer.origin }).lean();
    const victimChannelId = victimChannel?._id.toString() ?? '';
    const reconnected = await consentAndReturn(await startMastodon(victimServer, victimChannelId));
    expect(connectedChannelId(reconnected)).toBe(victimChannelId);
    const after = await ctx.db.channels.findById(victimChannelId).lean();
    expect(after?.tokenSealed).not.toBe(victimChannel?.tokenSealed);
  });

  it('refuses a server address for a platform with its own hosts, so its client secret stays home', async () => {
    await victim.get('/settings');
    const revealed = await victim.post('/settings/api-key/reveal', {});
    const apiKey = /id="api-key"[^>]*>([^<]+)</.exec(revealed.html)?.[1] ?? '';
    const before = await attempts();
    const instance = encodeURIComponent(attackerServer.origin);
    const answer = await api(stack.baseUrl, apiKey, `/api/public/v1/social/x?instance=${instance}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('takes no server address');
    expect(await attempts()).toBe(before);
  });
});
