import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { revealApiKey } from '../../../shared/domain/accounts/accounts.ts';
import { connectAttemptMs } from '../../../shared/domain/channels/connect-attempts.ts';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { DashboardClient, newAccount, type PageAnswer } from '../../../test/browser/dashboard-client.ts';
import { startTestBlueskyPds, type PdsAccount, type TestBlueskyPds } from '../../../test/support/bluesky-pds.ts';
import { api } from '../../../test/support/fixtures.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { expectError, v1 } from '../../../test/support/channel-test-kit.ts';

const urlAnswer = z.object({ url: z.url() });
const listed = z.array(z.object({
  id: z.string(),
  name: z.string(),
  identifier: z.string(),
  profile: z.string().nullable(),
  customer: z.object({ id: z.string(), name: z.string() }).optional(),
}));

/**
 * Credentials platforms connected for the organization whose API key asked, against the reference
 * Bluesky PDS: the form link `GET /social/bluesky` answers (signed in elsewhere, or not at all),
 * and `POST /integrations/bluesky` for a client that holds the app password itself.
 */
describe('connecting a credentials platform for the organization that asked', () => {
  let pds: TestBlueskyPds;
  let ctx: TestContext;
  let stack: RunningStack;
  let frontendUrl = '';
  let accounts = 0;

  beforeAll(async () => {
    pds = await startTestBlueskyPds();
    // The link is on FRONTEND_URL, which must name the api before it listens.
    const port = await freePort();
    frontendUrl = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({ FRONTEND_URL: frontendUrl, PLATFORM_TIMEOUT_MS: '5000' });
    stack = await startStack(ctx, { workers: false, port });
  }, 60_000);
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await pds.close();
  });

  const organization = async (name: string) => {
    const created = await createOrganization(ctx.db, ctx.secrets, { name: `${name} ${String(Math.random())}` });
    const found = await ctx.db.organizations.findById(created.organizationId).lean();
    return { ...created, name: found?.name ?? '' };
  };
  const pdsAccount = (): Promise<PdsAccount> => {
    accounts += 1;
    return pds.createAccount(`link${String(accounts)}`);
  };
  const formValues = (account: PdsAccount, password = account.appPassword) => (
    { identifier: account.handle, appPassword: password, pdsUrl: pds.url }
  );
  const channels = async (apiKey: string) =>
    listed.parse((await api(stack.baseUrl, apiKey, `${v1}/integrations`)).body);

  /** `GET /social/bluesky` with the organization's key: the link, as a path the dashboard client opens. */
  async function formLink(apiKey: string, query = ''): Promise<string> {
    const answer = await api(stack.baseUrl, apiKey, `${v1}/social/bluesky${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const url = new URL(urlAnswer.parse(answer.body).url);
    expect(`${url.origin}${url.pathname}`).toBe(`${frontendUrl}/channels/connect/bluesky`);
    expect(url.searchParams.get('key')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    return `${url.pathname}${url.search}`;
  }

  /** Opens the link and sends its form as the person would: the link's key rides in the form. */
  async function sendForm(browser: DashboardClient, link: string, values: Record<string, string>) {
    const page = await browser.get(link);
    expect(page.status, page.html).toBe(200);
    const key = /name="key" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
    expect(key).not.toBe('');
    return browser.post('/channels/connect/bluesky', { ...values, key });
  }

  const connectedId = (page: PageAnswer): string => {
    expect(page.status, page.html).toBe(200);
    expect(page.html).toContain('is connected');
    return /channel <code>([0-9a-f]{24})<\/code>/.exec(page.html)?.[1] ?? '';
  };

  it('gives each organization its own link; a user signed in to A who sends B\'s link connects B', async () => {
    const user = new DashboardClient(stack.baseUrl);
    const account = newAccount('link-a');
    expect((await user.signUp(account)).status).toBe(302);
    const a = await ctx.db.organizations.findOne({ name: account.organization }).lean();
    const aId = a?._id.toString() ?? '';
    const aKey = await revealApiKey(ctx.db, ctx.secrets, aId);
    const b = await organization('Org B');

    const [aLink, bLink] = [await formLink(aKey), await formLink(b.apiKey)];
    expect(aLink).not.toBe(bLink);
    const page = await user.get(bLink);
    expect(page.html).toContain(`to <strong>${b.name}</strong>`);
    // A bare host is welcome (SPS adds https://): type="url" would have the browser refuse it.
    expect(page.html).toMatch(/id="field-pdsUrl"\s+name="pdsUrl"\s+type="text"\s+inputmode="url"/);
    const bluesky = await pdsAccount();
    const sent = await sendForm(user, bLink, formValues(bluesky));
    const id = connectedId(sent);

    expect(await channels(b.apiKey))
      .toEqual([expect.objectContaining({ id, identifier: 'bluesky', profile: bluesky.handle })]);
    expect(await channels(aKey)).toEqual([]);
    const stored = await ctx.db.channels.findById(id).lean();
    expect(stored?.organizationId.toString()).toBe(b.organizationId);
    // A's own link still works, and lands in A: there the user is sent to A's channel list.
    const own = await sendForm(user, aLink, formValues(await pdsAccount()));
    expect(own.location).toMatch(/^\/channels\?connected=[0-9a-f]{24}$/);
    expect(await channels(aKey)).toHaveLength(1);
  });

  it('lets an organization without users connect through its link, once, with the customer it asked for', async () => {
    const lone = await organization('API-only org');
    const link = await formLink(lone.apiKey, '?customer=Acme');
    const visitor = new DashboardClient(stack.baseUrl);
    const bluesky = await pdsAccount();
    const id = connectedId(await sendForm(visitor, link, formValues(bluesky)));
    expect(await channels(lone.apiKey)).toEqual([
      expect.objectContaining({
        id, identifier: 'bluesky', customer: { id: expect.any(String) as string, name: 'Acme' },
      }),
    ]);

    const reopened = await visitor.get(link);
    expect(reopened.status).toBe(400);
    expect(reopened.html).toContain('This link cannot be used');
    expect(reopened.html).toContain('already used');
    const key = new URLSearchParams(link.split('?')[1]).get('key') ?? '';
    const resent = await visitor.post('/channels/connect/bluesky', { ...formValues(bluesky), key });
    expect(resent.status).toBe(400);
    expect(resent.html).toContain('already used');
    expect(await channels(lone.apiKey)).toHaveLength(1);
  });

  it('keeps the link through a refused password, reconnects with ?refresh, and says when a link expired', async () => {
    const org = await organization('Refresh org');
    const bluesky = await pdsAccount();
    const visitor = new DashboardClient(stack.baseUrl);
    const link = await formLink(org.apiKey);
    const refused = await sendForm(visitor, link, formValues(bluesky, 'wrong-pass-word-1234'));
    expect(refused.status).toBe(422);
    expect(refused.html).toContain('Bluesky: Invalid identifier or password');
    const id = connectedId(await sendForm(visitor, link, formValues(bluesky)));

    const again = await formLink(org.apiKey, `?refresh=${id}`);
    expect(connectedId(await sendForm(visitor, again, formValues(bluesky)))).toBe(id);
    expect(await channels(org.apiKey)).toHaveLength(1);
    const stranger = await organization('Stranger');
    expectError(await api(stack.baseUrl, stranger.apiKey, `${v1}/social/bluesky?refresh=${id}`), 404, 'not_found');

    const before = Date.now();
    const late = await formLink(org.apiKey);
    const lateKey = new URLSearchParams(late.split('?')[1]).get('key') ?? '';
    const attempt = await ctx.db.connectAttempts.findOne({ keyDigest: ctx.secrets.digest(lateKey) }).lean();
    expect(attempt).toMatchObject({ phase: 'credentials', provider: 'bluesky' });
    expect(attempt?.organizationId.toString()).toBe(org.organizationId);
    expect(attempt?.expiresAt.getTime()).toBeGreaterThanOrEqual(before + connectAttemptMs);
    expect(attempt?.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + connectAttemptMs);
    // Ten minutes on: the clock is the database's expiry, moved to the past.
    await ctx.db.connectAttempts.updateOne({ _id: attempt?._id }, { expiresAt: new Date(Date.now() - 1000) });
    const expired = await visitor.get(late);
    expect(expired.status).toBe(400);
    expect(expired.html).toContain('This link cannot be used');
    expect(expired.html).toContain('expired (it lasts 10 minutes); ask the app that sent you here for a new link');
  });

  it('connects with POST /integrations/bluesky into the key\'s organization: 201, 200 reconnecting', async () => {
    const org = await organization('Direct org');
    const bluesky = await pdsAccount();
    const created = await api(stack.baseUrl, org.apiKey, `${v1}/integrations/bluesky`, {
      method: 'POST', body: { ...formValues(bluesky), customer: 'Acme', unknownField: 'ignored' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String) as string,
      name: bluesky.handle,
      identifier: 'bluesky',
      picture: null,
      disabled: false,
      refreshNeeded: false,
      profile: bluesky.handle,
      customer: { id: expect.any(String) as string, name: 'Acme' },
    });
    const { id } = z.object({ id: z.string() }).parse(created.body);
    const stored = await ctx.db.channels.findById(id).lean();
    expect(stored?.organizationId.toString()).toBe(org.organizationId);
    expect(await channels(org.apiKey)).toEqual([expect.objectContaining({ id })]);

    const reconnected = await api(stack.baseUrl, org.apiKey, `${v1}/integrations/bluesky`, {
      method: 'POST', body: { ...formValues(bluesky), refresh: id },
    });
    expect(reconnected.status).toBe(200);
    expect(reconnected.body).toMatchObject({ id, identifier: 'bluesky' });
  });

  it('answers 422 connect_refused with Bluesky\'s words, 400 per missing field, 404 for other platforms', async () => {
    const org = await organization('Refused org');
    const bluesky = await pdsAccount();
    const post = (provider: string, body: unknown) =>
      api(stack.baseUrl, org.apiKey, `${v1}/integrations/${provider}`, { method: 'POST', body });

    const refused = await post('bluesky', formValues(bluesky, 'wrong-pass-word-1234'));
    expect(expectError(refused, 422, 'connect_refused')).toBe('Bluesky: Invalid identifier or password');

    const missing = await post('bluesky', { identifier: bluesky.handle, pdsUrl: 42 });
    expect(expectError(missing, 400, 'validation_failed')).toContain('App password is required');
    expect(missing.body).toMatchObject({
      details: [
        { path: 'appPassword', message: 'App password is required' },
        { path: 'pdsUrl', message: 'Hosting provider must be text' },
      ],
    });
    expect(expectError(await post('myspace', formValues(bluesky)), 404, 'not_found')).toContain('myspace');
    expect(expectError(await post('x', {}), 404, 'not_found')).toContain('GET /social/x');
    expect(await channels(org.apiKey)).toEqual([]);
  });

  it('signs in with a handle typed with its @', async () => {
    const org = await organization('At org');
    const bluesky = await pdsAccount();
    const answer = await api(stack.baseUrl, org.apiKey, `${v1}/integrations/bluesky`, {
      method: 'POST', body: { ...formValues(bluesky), identifier: `@${bluesky.handle}` },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body).toMatchObject({ profile: bluesky.handle });
  });

  it('says which address it tried when a hosting provider typed without a scheme does not answer https', async () => {
    const org = await organization('Scheme org');
    const bluesky = await pdsAccount();
    const bare = pds.url.replace(/^http:\/\//, '');
    const answer = await api(stack.baseUrl, org.apiKey, `${v1}/integrations/bluesky`, {
      method: 'POST', body: { ...formValues(bluesky), pdsUrl: bare },
    });
    expect(expectError(answer, 502, 'platform_error')).toContain(`the Bluesky server at https://${bare}`);
  });

  it('keeps an error that starts with an address as written on the form', async () => {
    const user = new DashboardClient(stack.baseUrl);
    expect((await user.signUp(newAccount('wording'))).status).toBe(302);
    await user.get('/channels/connect/wordpress');
    // The PDS answers, but not like WordPress.
    const sent = await user.post('/channels/connect/wordpress', {
      siteUrl: pds.url, username: 'ada', applicationPassword: 'abcd efgh ijkl mnop qrst uvwx',
    });
    expect(sent.status, sent.html).toBe(422);
    expect(sent.html).toContain(`${pds.url} did not answer like a WordPress REST API; check the site address.`);
  });
});
