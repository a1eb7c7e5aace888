import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredUser } from '../../shared/domain/accounts/accounts.ts';
import { approve } from '../../shared/domain/oauth/authorization.ts';
import { registerApp, type StoredApp } from '../../shared/domain/oauth/oauth-apps.ts';
import { DashboardClient, newAccount } from '../../test/browser/dashboard-client.ts';
import { api } from '../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

/**
 * Fault tests (issue 18, "Racing"): the token endpoint, the user's revoke and the app's deletion
 * hit over HTTP at the same moment, many rounds. Whatever order the writes land in on FerretDB,
 * one code makes at most one token and a revoke or a delete leaves no token alive.
 */
describe('OAuth under racing requests', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let owner: DashboardClient;
  let ownerOrganizationId: string;
  let member: DashboardClient;
  let memberUser: StoredUser;

  beforeAll(async () => {
    // Warnings are kept: a reused code is logged as one.
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    stack = await startStack(ctx, { workers: false });
    owner = new DashboardClient(stack.baseUrl);
    member = new DashboardClient(stack.baseUrl);
    const ownerAccount = newAccount('race-owner');
    const memberAccount = newAccount('race-member');
    expect((await owner.signUp(ownerAccount)).location).toBe('/settings');
    expect((await member.signUp(memberAccount)).location).toBe('/settings');
    const ownerUser = await ctx.db.users.findOne({ email: ownerAccount.email }).lean();
    const found = await ctx.db.users.findOne({ email: memberAccount.email }).lean();
    if (ownerUser === null || found === null) throw new Error('the sign-ups made no users');
    ownerOrganizationId = ownerUser.organizationIds[0]?.toString() ?? '';
    memberUser = found;
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const newApp = async (name: string) => registerApp(ctx.db, ctx.secrets, ownerOrganizationId, {
    name,
    redirectUrl: 'https://race.example.com/cb',
  });
  const codeFor = (app: StoredApp) => approve(ctx.db, ctx.secrets, {
    app,
    user: memberUser,
    organizationId: memberUser.organizationIds[0]?.toString() ?? '',
    now: new Date(),
  });
  const exchange = (code: string, app: StoredApp, secret: string) => api(stack.baseUrl, null, '/api/oauth/token', {
    method: 'POST',
    body: { grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: secret },
  });
  const refusedToken = { status: 401, body: { error: 'invalid_credentials' } };
  /** What the public API answers a token with: 200 and a list, or 401 and the error code. */
  const integrations = (token: string) => api(stack.baseUrl, token, '/api/public/v1/integrations');
  const liveGrants = (filter: Record<string, unknown>) => ctx.db.oauthGrants.countDocuments({
    ...filter,
    revokedAt: null,
  });

  /**
   * Staggers the start of a request by a few turns of the event loop (no timer), so that over the
   * rounds the racing requests reach the database in every order.
   */
  const afterTurns = async <T>(turns: number, start: () => Promise<T>): Promise<T> => {
    for (let turn = 0; turn < turns; turn += 1) await new Promise<void>((resolve) => { setImmediate(resolve); });
    return start();
  };

  const roundTimeout = { timeout: 180_000 };
  const reuseWarnings = () => ctx.logLines
    .map((line) => JSON.parse(line) as { event?: string; revokedTokens?: number })
    .filter((line) => line.event === 'oauth.code_reused')
    .map((line) => ({ revokedTokens: line.revokedTokens ?? 0 }));

  it('50 exchanges of one code: exactly one token, revoked by the reuse (RFC 6749 §4.1.2)', roundTimeout, async () => {
    const { app, clientSecret } = await newApp('Racing exchanges');
    const rounds = 8;
    const reusesLoggedBefore = reuseWarnings().length;
    for (let round = 0; round < rounds; round += 1) {
      const code = await codeFor(app);
      const answers = await Promise.all(Array.from({ length: 50 }, () => exchange(code, app, clientSecret)));
      const issued = answers.filter((answer) => answer.status === 200);
      expect(issued, `round ${round}`).toHaveLength(1);
      expect(issued[0]?.body).toMatchObject({
        token_type: 'bearer',
        access_token: expect.stringMatching(/^pos_/) as unknown,
      });
      const refused = answers.filter((answer) => answer.status === 400
        && (answer.body as { error?: unknown }).error === 'invalid_grant');
      expect(refused, `round ${round}`).toHaveLength(49);
      expect(await ctx.db.oauthGrants.countDocuments({ codeDigest: ctx.secrets.digest(code) })).toBe(1);
      // Every refused attempt was a reuse of the code, so the one token issued from it is dead.
      const token = (issued[0]?.body as { access_token: string }).access_token;
      expect(await integrations(token)).toMatchObject(refusedToken);
    }
    // Every refused attempt was logged as a reuse; at least one of each round's revoked the token.
    const reuses = reuseWarnings().slice(reusesLoggedBefore);
    expect(reuses).toHaveLength(rounds * 49);
    expect(reuses.filter((line) => line.revokedTokens > 0).length).toBeGreaterThanOrEqual(rounds);
  });

  it('a user\'s revoke racing the exchange of their code leaves no live token', roundTimeout, async () => {
    const { app, clientSecret } = await newApp('Racing revoke');
    expect((await member.get('/approved-apps')).status).toBe(200);
    const outcomes = { issuedThenKilled: 0, refused: 0 };
    for (let round = 0; round < 24; round += 1) {
      const code = await codeFor(app);
      const exchangeFirst = round % 2 === 0;
      const turns = Math.floor(round / 2) % 6;
      const [exchanged, revoked] = await Promise.all([
        afterTurns(exchangeFirst ? 0 : turns, () => exchange(code, app, clientSecret)),
        afterTurns(exchangeFirst ? turns : 0, () => member.post(`/approved-apps/${app._id.toString()}/revoke`, {})),
      ]);
      expect(revoked, `round ${round}`).toMatchObject({ status: 302, location: '/approved-apps?revoked=1' });
      if (exchanged.status === 200) {
        const token = (exchanged.body as { access_token: string }).access_token;
        expect(await integrations(token), `round ${round}`).toMatchObject(refusedToken);
        outcomes.issuedThenKilled += 1;
      } else {
        expect(exchanged, `round ${round}`).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
        outcomes.refused += 1;
      }
      expect(await liveGrants({ appId: app._id, userId: memberUser._id }), `round ${round}`).toBe(0);
    }
    expect(outcomes.issuedThenKilled + outcomes.refused).toBe(24);
    expect((await member.get('/approved-apps')).html).toContain('You have not approved any app.');
  });

  it('deleting the app racing an exchange leaves no live token', roundTimeout, async () => {
    expect((await owner.get('/oauth-app')).status).toBe(200);
    const outcomes = { issuedThenKilled: 0, refused: 0 };
    for (let round = 0; round < 24; round += 1) {
      const { app, clientSecret } = await newApp(`Doomed ${round}`);
      const code = await codeFor(app);
      const exchangeFirst = round % 2 === 0;
      const turns = Math.floor(round / 2) % 6;
      const [exchanged, deleted] = await Promise.all([
        afterTurns(exchangeFirst ? 0 : turns, () => exchange(code, app, clientSecret)),
        afterTurns(exchangeFirst ? turns : 0, () => owner.post('/oauth-app/delete', { app_id: app._id.toString() })),
      ]);
      expect(deleted, `round ${round}`).toMatchObject({ status: 302, location: '/oauth-app?deleted=1' });
      if (exchanged.status === 200) {
        const token = (exchanged.body as { access_token: string }).access_token;
        expect(await integrations(token), `round ${round}`).toMatchObject(refusedToken);
        outcomes.issuedThenKilled += 1;
      } else {
        // The app was gone before the exchange authenticated the client (invalid_client), or after (invalid_grant).
        const refusal = { status: exchanged.status, error: (exchanged.body as { error?: unknown }).error };
        expect(refusal, `round ${round}`).toBeOneOf([
          { status: 400, error: 'invalid_grant' },
          { status: 401, error: 'invalid_client' },
        ]);
        outcomes.refused += 1;
      }
      expect(await liveGrants({ appId: app._id }), `round ${round}`).toBe(0);
    }
    expect(outcomes.issuedThenKilled + outcomes.refused).toBe(24);
    expect((await member.get('/approved-apps')).html).not.toContain('Doomed');
  });
});
