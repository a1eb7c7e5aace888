import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, newAccount } from '../../test/browser/dashboard-client.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

/** The attributes of every Set-Cookie line of an answer, by cookie name. */
function cookieAttributes(headers: Headers): Map<string, string[]> {
  return new Map(headers.getSetCookie().map((line) => {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    return [pair.slice(0, pair.indexOf('=')), attributes.map((attribute) => attribute.toLowerCase())];
  }));
}

/** Which of these cookies carry the Secure attribute, by name, for a readable failure. */
function secureFlags(cookies: Map<string, string[]>): Record<string, boolean> {
  return Object.fromEntries([...cookies].map(([name, attributes]) => [name, attributes.includes('secure')]));
}

/**
 * The dashboard's cookies over plain http on loopback, as a deployment behind a TLS-terminating
 * proxy sees its requests when no proxy hop is trusted (compose's default).
 */
describe.each([
  { environment: 'production', secure: true, outcome: 'Secure' },
  { environment: 'development', secure: false, outcome: 'not Secure, so http on localhost works' },
])('dashboard cookies with NODE_ENV=$environment', ({ environment, secure, outcome }) => {
  let ctx: TestContext;
  let stack: RunningStack;

  beforeAll(async () => {
    ctx = await createTestContext({ NODE_ENV: environment });
    stack = await startStack(ctx, { workers: false });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  it(`marks the session and CSRF cookies (and their signatures) ${outcome}`, async () => {
    const client = new DashboardClient(stack.baseUrl);
    const signupPage = await client.get('/signup');
    expect(signupPage.status).toBe(200);
    const pageCookies = cookieAttributes(signupPage.headers);

    const signedUp = await client.post('/signup', { ...newAccount('cookie'), organization: 'Cookie Co' });
    expect(signedUp).toMatchObject({ status: 302, location: '/settings' });
    const sessionCookies = cookieAttributes(signedUp.headers);

    expect(secureFlags(pageCookies)).toEqual({ sps_csrf: secure, 'sps_csrf.sig': secure });
    expect(secureFlags(sessionCookies)).toEqual({
      sps_csrf: secure, 'sps_csrf.sig': secure, sps_session: secure, 'sps_session.sig': secure,
    });
    for (const [name, attributes] of [...pageCookies, ...sessionCookies]) {
      expect(attributes, name).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/']));
    }
    // The session those cookies carry works: the settings page answers, not a redirect to log in.
    const settings = await client.get('/settings');
    expect(settings.status).toBe(200);
    expect(settings.html).toContain('Organization: <strong>Cookie Co</strong>');
  });
});

/** Behind a trusted proxy hop, the proxy's X-Forwarded-Proto decides, whatever NODE_ENV says. */
describe('dashboard cookies behind one trusted proxy hop (NODE_ENV=development)', () => {
  let ctx: TestContext;
  let stack: RunningStack;

  beforeAll(async () => {
    ctx = await createTestContext({ NODE_ENV: 'development', TRUST_PROXY_HOPS: '1' });
    stack = await startStack(ctx, { workers: false });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  it('marks the cookies Secure when the proxy says the browser came over https, and only then', async () => {
    const page = (proto: string) => fetch(`${stack.baseUrl}/login`, {
      headers: { Accept: 'text/html', 'X-Forwarded-Proto': proto },
    });
    const overHttps = await page('https');
    expect(overHttps.status).toBe(200);
    expect(await overHttps.text()).toContain('name="_csrf"');
    expect(secureFlags(cookieAttributes(overHttps.headers))).toEqual({ sps_csrf: true, 'sps_csrf.sig': true });

    // A client's own value to the left of what the proxy appended is not believed.
    const forged = cookieAttributes((await page('https, http')).headers);
    expect(secureFlags(forged)).toEqual({ sps_csrf: false, 'sps_csrf.sig': false });
  });
});
