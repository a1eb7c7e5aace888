import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, newAccount } from './dashboard-client.ts';
import { revealApiKey } from '../../shared/domain/accounts/accounts.ts';
import { registerApp } from '../../shared/domain/oauth/oauth-apps.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

/** Logins, sessions, CSRF and return targets, spoken to over HTTP like a browser would. */
describe('dashboard sessions and forms', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let addressCounter = 0;

  beforeAll(async () => {
    // The tests pose as several client addresses through X-Forwarded-For, as a proxy would send them.
    ctx = await createTestContext({ TRUST_PROXY_HOPS: '1' });
    stack = await startStack(ctx, { workers: false });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  /** Each client poses as its own address (the app trusts X-Forwarded-For), so address limits stay per test. */
  const client = (address?: string): DashboardClient => {
    addressCounter += 1;
    return new DashboardClient(stack.baseUrl, { address: address ?? `198.51.100.${addressCounter}` });
  };

  async function userOrganizationId(email: string): Promise<string> {
    const user = await ctx.db.users.findOne({ email }).lean();
    const id = user?.organizationIds[0]?.toString();
    if (id === undefined) throw new Error(`no organization for ${email}`);
    return id;
  }

  it('sends visitors of / and of private pages to the login page, keeping where they were going', async () => {
    const visitor = client();
    expect((await visitor.get('/')).location).toBe('/login');
    expect((await visitor.get('/oauth-app')).location).toBe('/login?return_to=%2Foauth-app');
    expect((await visitor.get('/notifications?page=2')).location).toBe(`/login?return_to=${encodeURIComponent('/notifications?page=2')}`);
  });

  it('sets the session in a signed, HttpOnly, SameSite=Lax cookie, and refuses a tampered one', async () => {
    const user = client();
    const answer = await user.signUp(newAccount('cookie'));
    expect(answer).toMatchObject({ status: 302, location: '/settings' });
    const setCookies = answer.headers.getSetCookie();
    const session = setCookies.find((line) => line.startsWith('sps_session='));
    expect(session).toBeDefined();
    expect(session).toMatch(/; httponly/i);
    expect(session).toMatch(/; samesite=lax/i);
    expect(session).toMatch(/; path=\//i);
    expect(setCookies.some((line) => line.startsWith('sps_session.sig='))).toBe(true);
    const settings = await user.get('/settings');
    expect(settings.status).toBe(200);
    expect(settings.html).toContain('cookie');

    const value = user.cookies.get('sps_session') ?? '';
    user.cookies.set('sps_session', `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`);
    expect((await user.get('/settings')).location).toBe('/login');
  });

  it('refuses a form without a CSRF token, with a wrong one, or with another browser\'s one (403 page, nothing changes)', async () => {
    const account = newAccount('csrf');
    const user = client();
    await user.signUp(account);
    const organizationId = await userOrganizationId(account.email);
    const keyBefore = await revealApiKey(ctx.db, ctx.secrets, organizationId);
    await user.get('/settings');

    const other = client();
    await other.get('/login');
    for (const csrf of [null, 'not-the-token', other.csrf]) {
      const refused = await user.post('/settings/api-key/rotate', {}, { csrf });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      expect(refused.html).toContain('could not be accepted');
    }
    expect(await revealApiKey(ctx.db, ctx.secrets, organizationId)).toBe(keyBefore);

    const anonymous = client();
    const noToken = await anonymous.post(
      '/login',
      { email: account.email, password: account.password },
      { csrf: null },
    );
    expect(noToken.status).toBe(403);
    expect(noToken.html).toContain('could not be accepted');
    expect(noToken.headers.getSetCookie().some((line) => line.startsWith('sps_session='))).toBe(false);
    // A JSON body cannot carry the form token either.
    const json = await fetch(`${stack.baseUrl}/logout`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: [...user.cookies].map(([name, value]) => `${name}=${value}`).join('; ') }, body: JSON.stringify({ _csrf: user.csrf }), redirect: 'manual' });
    expect(json.status).toBe(403);
    expect(await json.text()).toContain('could not be accepted');
    expect((await user.get('/settings')).status).toBe(200);

    const rotated = await user.post('/settings/api-key/rotate', {});
    expect(rotated.status).toBe(200);
    const keyAfter = await revealApiKey(ctx.db, ctx.secrets, organizationId);
    expect(keyAfter).not.toBe(keyBefore);
    expect(rotated.html).toContain(keyAfter);
  });

  it('logs out by deleting the session record, so a copy of the old cookie no longer works', async () => {
    const account = newAccount('logout');
    const user = client();
    await user.signUp(account);
    const saved = new Map(user.cookies);
    const userId = (await ctx.db.users.findOne({ email: account.email }).lean())?._id;
    expect(await ctx.db.sessions.countDocuments({ userId })).toBe(1);

    await user.get('/settings');
    expect(await user.post('/logout', {})).toMatchObject({ status: 302, location: '/login' });
    expect(await ctx.db.sessions.countDocuments({ userId })).toBe(0);
    expect(user.cookies.has('sps_session')).toBe(false);

    const replay = client();
    for (const [name, value] of saved) replay.cookies.set(name, value);
    expect((await replay.get('/settings')).location).toBe('/login');

    expect((await user.logIn(account)).location).toBe('/settings');
    expect(await ctx.db.sessions.countDocuments({ userId })).toBe(1);
  });

  it('throttles an address after 5 wrong passwords for an email, whether or not the account exists', async () => {
    const account = newAccount('throttled');
    await client().signUp(account);
    const unknown = newAccount('nobody');
    for (const [email, address] of [[account.email, '203.0.113.81'], [unknown.email, '203.0.113.82']] as const) {
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        const answer = await client(address).logIn({ email, password: 'wrong password!' });
        expect(answer.status).toBe(400);
        expect(answer.html).toContain('The email or the password is wrong.');
      }
      const password = email === account.email ? account.password : 'wrong password!';
      const blocked = await client(address).logIn({ email, password });
      expect(blocked.status).toBe(429);
      expect(blocked.html).toContain('Too many login attempts');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(blocked.headers.getSetCookie().some((line) => line.startsWith('sps_session='))).toBe(false);
    }
    // Failures from elsewhere do not lock the owner out (an address that has not failed).
    expect((await client().logIn(account)).location).toBe('/settings');
  });

  it('throttles logins per address after 20 attempts, whatever the accounts', async () => {
    const address = '203.0.113.77';
    for (let attempt = 1; attempt <= 20; attempt += 1) {
      expect((await client(address).logIn({ email: newAccount('spray').email, password: 'wrong password!' })).status).toBe(400);
    }
    const account = newAccount('victim');
    await client().signUp(account);
    const blocked = await client(address).logIn(account);
    expect(blocked.status).toBe(429);
    expect(blocked.html).toContain('Too many login attempts');
    // The same account from another address is still welcome.
    expect((await client().logIn(account)).location).toBe('/settings');
  });

  it('brings a logged-out user back to the full consent address after logging in or signing up', async () => {
    const owner = newAccount('owner');
    await client().signUp(owner);
    const { app } = await registerApp(ctx.db, ctx.secrets, await userOrganizationId(owner.email), { name: 'Return App', redirectUrl: 'http://127.0.0.1:9/callback' });
    const consent = `/oauth/authorize?client_id=${app.clientId}&response_type=code&state=s%20t%26x&extra=1`;

    const visitor = client();
    const toLogin = await visitor.get(consent);
    expect(toLogin.status).toBe(302);
    expect(toLogin.location).toBe(`/login?return_to=${encodeURIComponent(consent)}`);
    const loginPage = await visitor.get(toLogin.location ?? '');
    expect(loginPage.html).toContain(`name="return_to" value="${consent.replaceAll('&', '&amp;')}"`);
    expect(loginPage.html).toContain(`href="/signup?return_to=${encodeURIComponent(consent).replaceAll('&', '&amp;')}"`);

    const account = newAccount('returning');
    expect((await visitor.signUp({ ...account, returnTo: consent })).location).toBe(consent);
    const consentPage = await visitor.get(consent);
    expect(consentPage.status).toBe(200);
    expect(consentPage.html).toContain('Return App');
    await visitor.post('/logout', {});
    expect((await visitor.logIn({ ...account, returnTo: consent })).location).toBe(consent);
  });

  // Found by the fuzzer (issue 18, item 6): PostgreSQL under FerretDB cannot search for text
  // holding a NUL character, so such a field made the login lookup fail with a 500.
  it('answers a readable 400 page, not a 500, for a form field or a query holding a NUL character', async () => {
    const visitor = client();
    await visitor.get('/login');
    const answer = await visitor.post('/login', { email: 'a\u0000b@example.com', password: 'whatever password' });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.html).toContain('text cannot contain the NUL character');
    const page = await visitor.get('/oauth/authorize?client_id=pca_%00&response_type=code');
    expect(page.status).toBe(400);
    expect(page.html).toContain('text cannot contain the NUL character');
  });

  it('refuses return targets that leave the site and lands on /settings instead', async () => {
    const attempts = ['https://evil.example/x', '//evil.example/x', '/\\evil.example/x', '/\t/evil.example', 'javascript:alert(1)', '/.//evil.example', 'evil.example', '/%0d%0aSet-Cookie:x=1'];
    for (const returnTo of attempts) {
      const visitor = client();
      const answer = await visitor.signUp({ ...newAccount('redirect'), returnTo });
      expect({ returnTo, location: answer.location }).toEqual({ returnTo, location: returnTo === '/%0d%0aSet-Cookie:x=1' ? '/%0d%0aSet-Cookie:x=1' : '/settings' });
    }
    const account = newAccount('redirect-login');
    await client().signUp(account);
    const visitor = client();
    expect((await visitor.logIn({ ...account, returnTo: '//evil.example' })).location).toBe('/settings');
    // An already logged-in visitor of the login page is not bounced off-site either.
    expect((await visitor.get('/login?return_to=https%3A%2F%2Fevil.example')).location).toBe('/settings');
    expect((await visitor.get('/login?return_to=%2Fchannels')).location).toBe('/channels');
  });
});
