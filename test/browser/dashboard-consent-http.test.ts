import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, newAccount } from './dashboard-client.ts';
import { revealApiKey } from '../../shared/domain/accounts/accounts.ts';
import { registerApp } from '../../shared/domain/oauth/oauth-apps.ts';
import { api } from '../support/fixtures.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

/** The consent screen and organization switching, over HTTP. */
describe('dashboard consent and organizations', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let clientId: string;
  let clientSecret: string;
  const redirectUrl = 'http://127.0.0.1:9/callback?from=sps';

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    const owner = new Types.ObjectId().toString();
    const registered = await registerApp(ctx.db, ctx.secrets, owner, { name: 'Consent <App>', description: 'Schedules "things"', redirectUrl });
    clientId = registered.app.clientId;
    clientSecret = registered.clientSecret;
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const consent = (query: Record<string, string>): string => `/oauth/authorize?${new URLSearchParams(query).toString()}`;

  async function signedInClient(label: string): Promise<{ user: DashboardClient; email: string }> {
    const user = new DashboardClient(stack.baseUrl);
    const account = newAccount(label);
    expect(await user.signUp(account)).toMatchObject({ status: 302, location: '/settings' });
    return { user, email: account.email };
  }

  async function organizationIds(email: string): Promise<string[]> {
    const user = await ctx.db.users.findOne({ email }).lean();
    return (user?.organizationIds ?? []).map((id) => id.toString());
  }

  async function exchange(code: string): Promise<string> {
    const answer = await api(stack.baseUrl, null, '/api/oauth/token', { method: 'POST', body: { grant_type: 'authorization_code', code, client_id: clientId, client_secret: clientSecret } });
    expect(answer.status).toBe(200);
    const token = (answer.body as { access_token: string }).access_token;
    expect(token).toMatch(/^pos_/);
    return token;
  }

  it('answers an unknown client, a missing one or another response_type with a 400 page and never redirects', async () => {
    const { user, email } = await signedInClient('invalid');
    const anonymous = new DashboardClient(stack.baseUrl);
    const invalid: Record<string, string>[] = [
      { client_id: 'pca_00000000000000000000000000000000', response_type: 'code', state: 'x' },
      { client_id: 'https://evil.example', response_type: 'code' },
      { response_type: 'code' },
      { client_id: clientId, response_type: 'token', state: 'x' },
      { client_id: clientId },
    ];
    for (const query of invalid) {
      for (const visitor of [user, anonymous]) {
        const answer = await visitor.get(consent(query));
        expect({ query, status: answer.status, location: answer.location }).toEqual({ query, status: 400, location: null });
        expect(answer.html).toContain('Invalid authorization request');
      }
    }
    await user.get(consent({ client_id: clientId, response_type: 'code' }));
    const posted = await user.post('/oauth/authorize', { client_id: 'pca_00000000000000000000000000000000', response_type: 'code', decision: 'approve' });
    expect({ status: posted.status, location: posted.location }).toEqual({ status: 400, location: null });
    expect(posted.html).toContain('is not registered with SPS');
    const account = await ctx.db.users.findOne({ email }).lean();
    expect(await ctx.db.oauthCodes.countDocuments({ userId: account?._id })).toBe(0);
  });

  it('shows the app, the permissions and the user\'s organizations, escaped', async () => {
    const { user } = await signedInClient('viewer');
    const page = await user.get(consent({ client_id: clientId, response_type: 'code', state: 'abc' }));
    expect(page.status).toBe(200);
    expect(page.html).toContain('Consent &lt;App&gt;');
    expect(page.html).toContain('Schedules &quot;things&quot;');
    expect(page.html).not.toContain('<App>');
    // Asked for no scope: every scope, each named with what it allows.
    expect(page.html).toMatch(/<code>posts<\/code>: create, change and delete posts/);
    expect(page.html).toContain('<code>webhooks</code>');
    expect(page.html).toContain('value="approve"');
    expect(page.html).toContain('value="deny"');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('redirects a denial with error=access_denied and the state, keeping the redirect URL\'s own query', async () => {
    const { user } = await signedInClient('denier');
    await user.get(consent({ client_id: clientId, response_type: 'code', state: 'deny me' }));
    const answer = await user.post('/oauth/authorize', { client_id: clientId, response_type: 'code', state: 'deny me', decision: 'deny' });
    expect(answer.status).toBe(302);
    const location = new URL(answer.location ?? '');
    expect(location.origin + location.pathname).toBe('http://127.0.0.1:9/callback');
    expect(Object.fromEntries(location.searchParams)).toEqual({ from: 'sps', error: 'access_denied', state: 'deny me' });
  });

  it('adds no state when the app sent none', async () => {
    const { user, email } = await signedInClient('stateless');
    const page = await user.get(consent({ client_id: clientId, response_type: 'code' }));
    expect(page.html).not.toContain('name="state"');
    const [organizationId = ''] = await organizationIds(email);
    const approved = await user.post('/oauth/authorize', { client_id: clientId, response_type: 'code', decision: 'approve', organization_id: organizationId });
    const location = new URL(approved.location ?? '');
    expect([...location.searchParams.keys()].sort()).toEqual(['code', 'from']);
  });

  it('switches organizations, and the token acts for the organization chosen on the consent screen', async () => {
    const { user, email } = await signedInClient('agency');
    await user.get('/settings');
    expect((await user.post('/organizations', { name: 'Second Client' })).location).toBe('/settings');
    const [first, second] = await organizationIds(email);
    if (first === undefined || second === undefined) throw new Error('expected two organizations');
    await ctx.db.channels.create({ organizationId: new Types.ObjectId(second), provider: 'mastodon', name: 'Second channel', instanceUrl: 'https://mastodon.example', tokenSealed: ctx.secrets.seal('token') });

    // A new organization becomes the current one; the header lets the user switch back.
    let settings = await user.get('/settings');
    expect(settings.html).toContain('Organization: <strong>Second Client</strong>');
    expect(settings.html).toMatch(/<option value="[0-9a-f]{24}">Org agency/);
    expect((await user.post('/organizations/switch', { organization_id: first, return_to: '/channels' })).location).toBe('/channels');
    settings = await user.post('/settings/api-key/reveal', {});
    expect(settings.html).toContain(await revealApiKey(ctx.db, ctx.secrets, first));
    const unknownOrganization = await user.post('/organizations/switch', {
      organization_id: new Types.ObjectId().toString(),
    });
    expect(unknownOrganization).toMatchObject({ status: 404, location: null });
    expect(unknownOrganization.html).toContain('Not found');
    expect((await user.post('/organizations/switch', { organization_id: second, return_to: 'https://evil.example' })).location).toBe('/settings');

    const query = { client_id: clientId, response_type: 'code', state: 'pick' };
    const page = await user.get(consent(query));
    expect(page.html).toContain(`<option value="${second}" selected>Second Client</option>`);
    const foreign = await user.post('/oauth/authorize', { ...query, decision: 'approve', organization_id: new Types.ObjectId().toString() });
    expect({ status: foreign.status, location: foreign.location }).toEqual({ status: 400, location: null });
    expect(foreign.html).toContain('Choose one of your organizations, then Authorize or Deny.');

    await user.post('/organizations/switch', { organization_id: first, return_to: consent(query) });
    const approved = await user.post('/oauth/authorize', { ...query, decision: 'approve', organization_id: second });
    const code = new URL(approved.location ?? '').searchParams.get('code') ?? '';
    const token = await exchange(code);
    const integrations = await api(stack.baseUrl, token, '/api/public/v1/integrations');
    expect(integrations).toMatchObject({
      status: 200,
      body: [expect.objectContaining({ name: 'Second channel', identifier: 'mastodon' })],
    });
    expect(integrations.body).toHaveLength(1);
    expect((await api(stack.baseUrl, await revealApiKey(ctx.db, ctx.secrets, first), '/api/public/v1/integrations')).body).toEqual([]);

    const approvedApps = await user.get('/approved-apps');
    expect(approvedApps.html).toContain('Consent &lt;App&gt;');
    expect(approvedApps.html).toContain('Second Client');
  });
});
