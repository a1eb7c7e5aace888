import { createHash, randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp, type StoredApp } from '../../shared/domain/oauth/oauth-apps.ts';
import { decideOnConsent } from '../../test/browser/consent-form.ts';
import { DashboardClient, newAccount, type PageAnswer } from '../../test/browser/dashboard-client.ts';
import { api } from '../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

const redirectUrl = 'http://127.0.0.1:9/callback';

/** RFC 7636: a random verifier and its S256 challenge. */
function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * What standard clients add to the spec's authorization request, checked through the consent
 * page and the token endpoint: redirect_uri (RFC 6749 §3.1.2, §4.1.3), PKCE S256 (RFC 7636) and
 * scope (RFC 6749 §3.3).
 */
describe('OAuth authorization request: redirect_uri, PKCE and scope', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let app: StoredApp;
  let clientSecret: string;
  let user: DashboardClient;
  let account: { email: string; password: string; organization: string };

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    const owner = new Types.ObjectId().toString();
    ({ app, clientSecret } = await registerApp(ctx.db, ctx.secrets, owner, { name: 'Standard app', redirectUrl }));
    user = new DashboardClient(stack.baseUrl);
    account = newAccount('standard');
    expect(await user.signUp(account)).toMatchObject({ status: 302 });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const authorizePath = (extra: Record<string, string> = {}): string => {
    const query = new URLSearchParams({ client_id: app.clientId, response_type: 'code', state: 'st8', ...extra });
    return `/oauth/authorize?${query.toString()}`;
  };
  /** The query the app's redirect URL receives, after checking it goes to the registered URL. */
  const redirected = (answer: PageAnswer): URLSearchParams => {
    expect(answer.status).toBe(302);
    const location = new URL(answer.location ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(redirectUrl);
    return location.searchParams;
  };
  const approvedCode = async (extra: Record<string, string> = {}): Promise<string> => {
    const { answer } = await decideOnConsent(user, authorizePath(extra));
    const query = redirected(answer);
    expect(query.get('state')).toBe('st8');
    return query.get('code') ?? '';
  };
  const exchange = (code: string, extra: Record<string, string> = {}) => api(stack.baseUrl, null, '/api/oauth/token', {
    method: 'POST',
    body: { grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: clientSecret, ...extra },
  });
  const expectInvalidGrant = async (code: string, extra: Record<string, string>, description: RegExp) => {
    expect(await exchange(code, extra)).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: expect.stringMatching(description) as unknown },
    });
  };
  const expectIssued = async (code: string, extra: Record<string, string> = {}): Promise<Record<string, unknown>> => {
    const answer = await exchange(code, extra);
    expect(answer).toMatchObject({ status: 200, body: { token_type: 'bearer' } });
    const body = answer.body as Record<string, unknown>;
    const connected = await api(stack.baseUrl, String(body.access_token), '/api/public/v1/is-connected');
    expect(connected).toMatchObject({ status: 200 });
    return body;
  };
  const codesStored = () => ctx.db.oauthCodes.countDocuments({ appId: app._id });

  it('answers a redirect_uri other than the registered one on a page, never redirecting to it', async () => {
    const anonymous = new DashboardClient(stack.baseUrl);
    const others = [
      'http://127.0.0.1:9/callback/',
      'http://127.0.0.1:9/Callback',
      'http://127.0.0.1:9/callback?x=1',
      'http://localhost:9/callback',
      'https://evil.example/callback',
    ];
    for (const redirectUri of others) {
      for (const visitor of [user, anonymous]) {
        const answer = await visitor.get(authorizePath({ redirect_uri: redirectUri }));
        expect({ redirectUri, status: answer.status, location: answer.location })
          .toEqual({ redirectUri, status: 400, location: null });
        expect(answer.html).toContain('an address it did not register');
      }
    }
    // A consent form whose hidden redirect_uri was altered is refused the same way.
    const before = await codesStored();
    await user.get(authorizePath());
    const forged = await user.post('/oauth/authorize', {
      client_id: app.clientId, response_type: 'code', redirect_uri: 'https://evil.example/cb', decision: 'approve',
    });
    expect({ status: forged.status, location: forged.location }).toEqual({ status: 400, location: null });
    expect(await codesStored()).toBe(before);
  });

  it('answers a state too long to be sent back on its own page, and still sends back one of 2,048', async () => {
    const longest = 's'.repeat(2_048);
    const query = redirected((await decideOnConsent(user, authorizePath({ state: longest }), 'deny')).answer);
    expect(query.get('state')).toBe(longest);
    const before = await codesStored();
    await user.get(authorizePath());
    // A form long enough to break the redirect (64 KB of state) is refused before any answer repeats it.
    const tooLong = 's'.repeat(60_000);
    for (const decision of ['approve', 'deny']) {
      const answer = await user.post('/oauth/authorize', {
        client_id: app.clientId, response_type: 'code', state: tooLong, decision,
      });
      expect({ status: answer.status, location: answer.location }).toEqual({ status: 400, location: null });
      expect(answer.html).toContain('sent a state longer than 2048 characters');
    }
    const page = await user.get(authorizePath({ state: 's'.repeat(2_049) }));
    expect({ status: page.status, location: page.location }).toEqual({ status: 400, location: null });
    expect(await codesStored()).toBe(before);
  });

  it('binds a redirect_uri sent at authorize to its code: the token request must repeat it exactly', async () => {
    const code = await approvedCode({ redirect_uri: redirectUrl });
    await expectInvalidGrant(code, {}, /redirect_uri is required/);
    await expectInvalidGrant(code, { redirect_uri: `${redirectUrl}/` }, /redirect_uri does not match/);
    await expectIssued(code, { redirect_uri: redirectUrl });
  });

  it('checks a redirect_uri sent only at the token endpoint against the registered one', async () => {
    const code = await approvedCode();
    await expectInvalidGrant(code, { redirect_uri: 'http://127.0.0.1:9/elsewhere' }, /redirect_uri does not match/);
    await expectIssued(code, { redirect_uri: redirectUrl });
  });

  it('PKCE S256: stores the challenge with the code and exchanges it only with the matching verifier', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await approvedCode({ code_challenge: challenge, code_challenge_method: 'S256' });
    const stored = await ctx.db.oauthCodes.findOne({ codeDigest: ctx.secrets.digest(code) }).lean();
    expect(stored?.codeChallenge).toBe(challenge);
    await expectInvalidGrant(code, {}, /code_verifier is required/);
    await expectInvalidGrant(code, { code_verifier: pkcePair().verifier }, /does not match/);
    await expectInvalidGrant(code, { code_verifier: challenge.slice(0, 20) }, /does not match/);
    // The refused attempts did not use the code up: its rightful holder still can.
    await expectIssued(code, { code_verifier: verifier });
  });

  it('refuses a code_verifier for a code issued without a challenge, so PKCE cannot be stripped unseen', async () => {
    const code = await approvedCode();
    await expectInvalidGrant(code, { code_verifier: pkcePair().verifier }, /issued without PKCE/);
    await expectIssued(code);
  });

  it('sends plain or malformed PKCE requests back with invalid_request and the state, before any login', async () => {
    const { challenge } = pkcePair();
    const anonymous = new DashboardClient(stack.baseUrl);
    const refused: Record<string, string>[] = [
      { code_challenge: challenge, code_challenge_method: 'plain' },
      // RFC 7636 §4.3: no method means plain.
      { code_challenge: challenge },
      { code_challenge: 'too-short', code_challenge_method: 'S256' },
      { code_challenge_method: 'S256' },
    ];
    const before = await codesStored();
    for (const extra of refused) {
      for (const visitor of [user, anonymous]) {
        const query = redirected(await visitor.get(authorizePath(extra)));
        expect({ extra, error: query.get('error'), state: query.get('state') })
          .toEqual({ extra, error: 'invalid_request', state: 'st8' });
        expect(query.get('error_description')).toMatch(/code_challenge/);
        expect(query.has('code')).toBe(false);
      }
    }
    expect(await codesStored()).toBe(before);
  });

  it('answers the granted scope with the token: the one requested, or public_api', async () => {
    const consent = await user.get(authorizePath({ scope: 'posts  read' }));
    expect(consent.html).toContain('with only these scopes');
    const listed = /<ul id="consent-scopes">([\s\S]*?)<\/ul>/.exec(consent.html)?.[1] ?? '';
    expect([...listed.matchAll(/<code>(\w+)<\/code>/g)].map((match) => match[1])).toEqual(['read', 'posts']);
    const requested = await approvedCode({ scope: 'posts  read' });
    const issued = await expectIssued(requested);
    expect(issued).toMatchObject({ scope: 'posts read' });
    // The token carries its scopes, enforced as an API key's are.
    const token = String(issued.access_token);
    expect((await api(stack.baseUrl, token, '/api/public/v1/integrations')).status).toBe(200);
    const webhook = { url: 'https://hooks.example.com/sps', events: ['post.published'] };
    expect(await api(stack.baseUrl, token, '/api/public/v1/webhooks', { method: 'POST', body: webhook }))
      .toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    const everything = await user.get(authorizePath());
    expect(everything.html).toContain('every scope');
    const unknown = redirected(await user.get(authorizePath({ scope: 'posts:write' })));
    expect(unknown.get('error')).toBe('invalid_scope');
    expect(await expectIssued(await approvedCode())).toMatchObject({ scope: 'public_api' });
    const query = redirected(await user.get(authorizePath({ scope: 'bad"scope' })));
    expect(query.get('error')).toBe('invalid_scope');
  });

  it('keeps the whole request through a login: the approval binds the challenge and redirect_uri sent', async () => {
    const { verifier, challenge } = pkcePair();
    const visitor = new DashboardClient(stack.baseUrl);
    const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };
    const path = authorizePath({ redirect_uri: redirectUrl, ...pkce });
    const toLogin = await visitor.get(path);
    expect(toLogin.status).toBe(302);
    const returnTo = new URL(toLogin.location ?? '', stack.baseUrl).searchParams.get('return_to') ?? '';
    const loggedIn = await visitor.logIn({ email: account.email, password: account.password, returnTo });
    expect(loggedIn).toMatchObject({ status: 302, location: path });
    const { page, answer } = await decideOnConsent(visitor, loggedIn.location ?? '');
    expect(page.html).toContain(`name="code_challenge" value="${challenge}"`);
    const code = redirected(answer).get('code') ?? '';
    await expectInvalidGrant(code, { code_verifier: verifier }, /redirect_uri is required/);
    await expectIssued(code, { code_verifier: verifier, redirect_uri: redirectUrl });
  });
});
