import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type StoredUser } from '../../shared/domain/accounts/accounts.ts';
import { approve, deleteExpiredCodes } from '../../shared/domain/oauth/authorization.ts';
import { checkAuthorizationRequest } from '../../shared/domain/oauth/authorization-request.ts';
import { approvedApps, revokeApp } from '../../shared/domain/oauth/grants.ts';
import { deleteApp, registerApp, rotateAppSecret, type StoredApp } from '../../shared/domain/oauth/oauth-apps.ts';
import { api } from '../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

/**
 * The spec's two OAuth lifecycle tables and its error rows, over HTTP at POST /api/oauth/token
 * and the public API. The consent screen itself is driven in a real browser in test/browser.
 */
describe('OAuth 2.0: codes, token endpoint and access tokens', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let owner: { user: StoredUser; organizationId: string };
  let member: { user: StoredUser; organizationId: string };
  let app: StoredApp;
  let clientSecret: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    owner = await signUp(ctx.db, ctx.secrets, {
      email: 'owner@example.com',
      password: 'correct horse battery',
      organizationName: 'App Maker',
    });
    member = await signUp(ctx.db, ctx.secrets, {
      email: 'member@example.com',
      password: 'correct horse battery',
      organizationName: 'Customer Co',
    });
    ({ app, clientSecret } = await registerApp(ctx.db, ctx.secrets, owner.organizationId, {
      name: 'Scheduler Pro',
      redirectUrl: 'https://app.example.com/callback',
    }));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const codeFor = (user = member, now = new Date(), forApp = app) =>
    approve(ctx.db, ctx.secrets, { app: forApp, user: user.user, organizationId: user.organizationId, now });
  const exchange = (body: Record<string, unknown>) =>
    api(stack.baseUrl, null, '/api/oauth/token', { method: 'POST', body });
  const exchangeCode = (code: string, secret = clientSecret, clientId = app.clientId) =>
    exchange({ grant_type: 'authorization_code', code, client_id: clientId, client_secret: secret });
  const integrations = (token: string) => api(stack.baseUrl, token, '/api/public/v1/integrations');
  /** A live token acts for the member's organization, which has no channel: 200 and an empty list. */
  const expectLive = async (token: string) => {
    expect(await integrations(token)).toMatchObject({ status: 200, body: [] });
  };
  const expectDead = async (token: string) => {
    expect(await integrations(token)).toMatchObject({ status: 401, body: { error: 'invalid_credentials' } });
  };
  const tokenOf = (answer: { status: number; body: unknown }): string => {
    expect(answer).toMatchObject({
      status: 200,
      body: { token_type: 'bearer', access_token: expect.stringMatching(/^pos_/) as unknown },
    });
    return (answer.body as { access_token: string }).access_token;
  };

  it('issues client ids pca_ and secrets pcs_, keeping only a digest of the secret', async () => {
    expect(app.clientId).toMatch(/^pca_[0-9a-f]{32}$/);
    expect(clientSecret).toMatch(/^pcs_[A-Za-z0-9_-]{43}$/);
    const stored = await ctx.db.oauthApps.findById(app._id).lean();
    expect(JSON.stringify(stored)).not.toContain(clientSecret);
  });

  it('accepts only a known client_id with response_type code on the consent request', async () => {
    const check = (clientId: string, responseType: string) =>
      checkAuthorizationRequest(ctx.db, {
        clientId,
        responseType,
        state: null,
        redirectUri: null,
        codeChallenge: null,
        codeChallengeMethod: null,
        scope: null,
        resource: null,
      });
    expect(await check(app.clientId, 'code')).toMatchObject({
      outcome: 'acceptable',
      app: { name: 'Scheduler Pro' },
    });
    expect(await check(app.clientId, 'token')).toEqual({
      outcome: 'untrusted',
      problem: 'unsupported_response_type',
    });
    const unknown = await check('pca_0000000000000000000000000000000', 'code');
    expect(unknown).toEqual({ outcome: 'untrusted', problem: 'unknown_client' });
  });

  it('code issued → exchange within 10 minutes with the right credentials → the contract\'s token body', async () => {
    const response = await exchangeCode(await codeFor());
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: member.organizationId,
      cus: null,
      access_token: expect.stringMatching(/^pos_[A-Za-z0-9_-]{43}$/) as string,
      token_type: 'bearer',
      scope: 'public_api',
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
    const token = (response.body as { access_token: string }).access_token;
    await expectLive(token);
    await expectLive(`Bearer ${token}`);
  });

  it('accepts a form-encoded body too', async () => {
    const code = await codeFor();
    const response = await api(stack.baseUrl, null, '/api/oauth/token', {
      method: 'POST',
      rawBody: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: app.clientId,
        client_secret: clientSecret,
      }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    await expectLive(tokenOf(response));
  });

  it('code consumed → a second exchange: invalid_grant, and its token is revoked (RFC 6749 §4.1.2)', async () => {
    const code = await codeFor();
    const token = tokenOf(await exchangeCode(code));
    await expectLive(token);
    expect(await exchangeCode(code)).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: expect.stringMatching(/already used.*revoked/) as unknown },
    });
    await expectDead(token);
    const revoked = { codeDigest: ctx.secrets.digest(code), revokedAt: { $ne: null } };
    expect(await ctx.db.oauthGrants.countDocuments(revoked)).toBe(1);
  });

  it('a reused code revokes its token even after the sweep removed the used code', async () => {
    const code = await codeFor();
    const token = tokenOf(await exchangeCode(code));
    expect(await deleteExpiredCodes(ctx.db, new Date())).toBeGreaterThanOrEqual(1);
    expect(await ctx.db.oauthCodes.countDocuments({ codeDigest: ctx.secrets.digest(code) })).toBe(0);
    expect(await exchangeCode(code)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await expectDead(token);
  });

  it('a reused code presented by another app revokes nothing', async () => {
    const other = await registerApp(ctx.db, ctx.secrets, owner.organizationId, {
      name: 'Code thief',
      redirectUrl: 'https://thief.example.com/cb',
    });
    const code = await codeFor();
    const token = tokenOf(await exchangeCode(code));
    const thief = await exchangeCode(code, other.clientSecret, other.app.clientId);
    expect(thief).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await expectLive(token);
  });

  it('10 minutes elapse → invalid_grant', async () => {
    const code = await codeFor(member, new Date(Date.now() - 10 * 60 * 1000 - 1000));
    expect(await exchangeCode(code)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const fresh = await codeFor(member, new Date(Date.now() - 9 * 60 * 1000));
    await expectLive(tokenOf(await exchangeCode(fresh)));
  });

  it('answers the RFC 6749 errors with their statuses', async () => {
    const code = await codeFor();
    expect(
      await exchange({
        grant_type: 'client_credentials',
        code,
        client_id: app.clientId,
        client_secret: clientSecret,
      }),
    ).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    expect(await exchange({ code, client_id: app.clientId, client_secret: clientSecret })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    expect(
      await exchange({ grant_type: 'authorization_code', client_id: app.clientId, client_secret: clientSecret }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const wrongSecret = await exchangeCode(code, 'pcs_wrong');
    expect(wrongSecret).toMatchObject({
      status: 401,
      body: { error: 'invalid_client', error_description: expect.any(String) as string },
    });
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(await exchangeCode(code, clientSecret, 'pca_ffffffffffffffffffffffffffffffff')).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    expect(await exchangeCode('not-a-code')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const malformed = await api(stack.baseUrl, null, '/api/oauth/token', {
      method: 'POST',
      rawBody: '{"grant_type":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(malformed).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    // The code was never consumed by the failed attempts.
    await expectLive(tokenOf(await exchangeCode(code)));
  });

  it('refuses a code issued to another app with invalid_grant', async () => {
    const other = await registerApp(ctx.db, ctx.secrets, owner.organizationId, {
      name: 'Other app',
      redirectUrl: 'https://other.example.com/cb',
    });
    const code = await codeFor(member, new Date(), other.app);
    expect(await exchangeCode(code)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await expectLive(tokenOf(await exchangeCode(code, other.clientSecret, other.app.clientId)));
  });

  it('rotating the secret fails the old one at once and leaves issued tokens valid', async () => {
    const token = tokenOf(await exchangeCode(await codeFor()));
    const pending = await codeFor();
    const newSecret = await rotateAppSecret(ctx.db, ctx.secrets, owner.organizationId, app._id.toString());
    expect(await exchangeCode(pending)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    await expectLive(token);
    await expectLive(tokenOf(await exchangeCode(pending, newSecret)));
    clientSecret = newSecret;
  });

  it('access tokens do not expire with time', async () => {
    const token = tokenOf(await exchangeCode(await codeFor()));
    await ctx.db.oauthGrants.updateOne(
      { tokenDigest: ctx.secrets.digest(token) },
      { $set: { createdAt: new Date('2020-01-01T00:00:00Z') } },
    );
    await expectLive(token);
  });

  it('a user\'s revoke ends that user\'s access only', async () => {
    const third = await signUp(ctx.db, ctx.secrets, {
      email: 'third@example.com',
      password: 'correct horse battery',
      organizationName: 'Third',
    });
    const mine = tokenOf(await exchangeCode(await codeFor()));
    const theirs = tokenOf(await exchangeCode(await codeFor(third)));
    expect((await approvedApps(ctx.db, member.user._id)).map((entry) => entry.name)).toContain('Scheduler Pro');
    const revoked = await revokeApp(ctx.db, stack.caches, member.user._id, app._id.toString(), new Date());
    expect(revoked).toBeGreaterThanOrEqual(1);
    await expectDead(mine);
    expect(await integrations(theirs)).toMatchObject({ status: 200, body: [] });
    expect((await approvedApps(ctx.db, member.user._id)).map((entry) => entry.name)).not.toContain('Scheduler Pro');
  });

  it('a user\'s revoke also voids the codes they approved that the app has not exchanged yet', async () => {
    const third = await signUp(ctx.db, ctx.secrets, {
      email: 'fourth@example.com',
      password: 'correct horse battery',
      organizationName: 'Fourth',
    });
    const approvedJustBefore = await codeFor();
    const theirs = await codeFor(third);
    await revokeApp(ctx.db, stack.caches, member.user._id, app._id.toString(), new Date());
    expect(await exchangeCode(approvedJustBefore)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const memberGrants = { userId: member.user._id, appId: app._id, revokedAt: null };
    expect(await ctx.db.oauthGrants.countDocuments(memberGrants)).toBe(0);
    // Another user's pending approval of the same app is theirs to keep.
    expect(await integrations(tokenOf(await exchangeCode(theirs)))).toMatchObject({ status: 200, body: [] });
    // Approving again after the revoke is a new consent and works.
    await expectLive(tokenOf(await exchangeCode(await codeFor())));
  });

  it('a token whose app record is gone fails, whatever its grant says', async () => {
    const fleeting = await registerApp(ctx.db, ctx.secrets, owner.organizationId, {
      name: 'Fleeting app',
      redirectUrl: 'https://fleeting.example.com/cb',
    });
    const code = await codeFor(member, new Date(), fleeting.app);
    const token = tokenOf(await exchangeCode(code, fleeting.clientSecret, fleeting.app.clientId));
    await expectLive(token);
    // As if a delete had removed the app (and told the caches) but not (yet) reached this grant.
    await ctx.db.oauthApps.deleteOne({ _id: fleeting.app._id });
    await stack.caches.changed([`app:${fleeting.app._id.toString()}`]);
    const unrevoked = { tokenDigest: ctx.secrets.digest(token), revokedAt: null };
    expect(await ctx.db.oauthGrants.countDocuments(unrevoked)).toBe(1);
    await expectDead(token);
  });

  it('deleting the app revokes its tokens, leaves every approved-apps list, and is irreversible', async () => {
    const doomed = await registerApp(ctx.db, ctx.secrets, owner.organizationId, {
      name: 'Doomed app',
      redirectUrl: 'https://doomed.example.com/cb',
    });
    const tokens = await Promise.all(
      [member, owner].map(async (user) => {
        const code = await codeFor(user, new Date(), doomed.app);
        return tokenOf(await exchangeCode(code, doomed.clientSecret, doomed.app.clientId));
      }),
    );
    const unused = await codeFor(member, new Date(), doomed.app);
    for (const token of tokens) expect(await integrations(token)).toMatchObject({ status: 200, body: [] });
    await deleteApp(ctx.db, stack.caches, owner.organizationId, doomed.app._id.toString(), new Date());
    for (const token of tokens) await expectDead(token);
    expect(await ctx.db.oauthGrants.countDocuments({ appId: doomed.app._id, revokedAt: null })).toBe(0);
    for (const user of [member, owner])
      expect((await approvedApps(ctx.db, user.user._id)).map((entry) => entry.name)).not.toContain('Doomed app');
    expect(await exchangeCode(unused, doomed.clientSecret, doomed.app.clientId)).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    expect(await ctx.db.oauthCodes.countDocuments({ appId: doomed.app._id })).toBe(0);
  });

  it('an access token counts against its organization\'s rate limit together with the API key', async () => {
    const limited = await createTestContext({ PUBLIC_API_RATE_LIMIT: '30' });
    const limitedStack = await startStack(limited, { workers: false });
    try {
      const user = await signUp(limited.db, limited.secrets, {
        email: 'rate@example.com',
        password: 'correct horse battery',
        organizationName: 'Rate Co',
      });
      const registered = await registerApp(limited.db, limited.secrets, user.organizationId, {
        name: 'Rate app',
        redirectUrl: 'https://rate.example.com/cb',
      });
      const code = await approve(limited.db, limited.secrets, {
        app: registered.app,
        user: user.user,
        organizationId: user.organizationId,
        now: new Date(),
      });
      const token = tokenOf(
        await api(limitedStack.baseUrl, null, '/api/oauth/token', {
          method: 'POST',
          body: {
            grant_type: 'authorization_code',
            code,
            client_id: registered.app.clientId,
            client_secret: registered.clientSecret,
          },
        }),
      );
      const organization = await limited.db.organizations.findById(user.organizationId).lean();
      const apiKey = limited.secrets.open(organization?.apiKeySealed ?? '');
      const answers = await Promise.all([
        ...Array.from({ length: 20 }, () => api(limitedStack.baseUrl, token, '/api/public/v1/is-connected')),
        ...Array.from({ length: 20 }, () => api(limitedStack.baseUrl, apiKey, '/api/public/v1/is-connected')),
      ]);
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(30);
      const refusedByLimit = answers.filter((answer) => answer.status === 429);
      expect(refusedByLimit).toHaveLength(10);
      for (const answer of refusedByLimit) expect(answer.body).toMatchObject({ error: 'rate_limited' });
    } finally {
      await limitedStack.close();
      await limited.cleanup();
    }
  });

  it('refuses approval for an organization the user does not belong to', async () => {
    await expect(
      approve(ctx.db, ctx.secrets, { app, user: member.user, organizationId: owner.organizationId, now: new Date() }),
    ).rejects.toThrow(/not a member/);
    await expect(
      approve(ctx.db, ctx.secrets, {
        app,
        user: member.user,
        organizationId: new Types.ObjectId().toString(),
        now: new Date(),
      }),
    ).rejects.toThrow(/not a member/);
  });
});
