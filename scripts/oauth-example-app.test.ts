import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../shared/domain/accounts/accounts.ts';
import { editApp, registerApp } from '../shared/domain/oauth/oauth-apps.ts';
import { DashboardClient } from '../test/browser/dashboard-client.ts';
import { startService } from '../test/support/processes.ts';
import { startStack, type RunningStack } from '../test/support/stack.ts';
import { createTestContext, type TestContext } from '../test/support/test-context.ts';

describe('npm run oauth:example (a third-party app, end to end)', () => {
  let ctx: TestContext;
  let stack: RunningStack;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  let users = 0;
  async function setUp(decision: 'approve' | 'deny') {
    users += 1;
    const email = `example-${users}@example.com`;
    const user = await signUp(ctx.db, ctx.secrets, { email, password: 'correct horse battery', organizationName: `Example ${users}` });
    // The app listens on a port of the system's choosing (no free-port race) and says which:
    // its Redirect URL is set to that address before the user is sent to the consent page.
    const details = { name: 'Example app', redirectUrl: 'http://127.0.0.1:1/callback' };
    const { app, clientSecret } = await registerApp(ctx.db, ctx.secrets, user.organizationId, details);
    const script = startService('scripts/oauth-example-app.ts', { PATH: process.env.PATH }, [
      '--client-id', app.clientId, '--client-secret', clientSecret, '--port', '0',
      '--frontend', stack.baseUrl, '--api', `${stack.baseUrl}/api`,
    ]);
    const [, redirectUrl = ''] = await script.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+\/callback)/);
    await editApp(ctx.db, user.organizationId, app._id.toString(), { ...details, redirectUrl });
    const [authorizeUrl = ''] = await script.waitForOutput(/http:\/\/\S+\/oauth\/authorize\?\S+/);
    const browser = new DashboardClient(stack.baseUrl);
    await browser.get('/login');
    await browser.post('/login', { email, password: 'correct horse battery' });
    const url = new URL(authorizeUrl);
    await browser.get(`${url.pathname}${url.search}`);
    const answer = await browser.post('/oauth/authorize', {
      client_id: app.clientId, response_type: 'code', state: url.searchParams.get('state') ?? '', organization_id: user.organizationId, decision,
    });
    expect(answer.status).toBe(302);
    expect(answer.location?.startsWith(`${redirectUrl}?`)).toBe(true);
    return { script, callback: answer.location ?? '', organizationId: user.organizationId };
  }

  it('prints the authorize URL, takes the callback, checks state, exchanges the code and lists integrations', async () => {
    const { script, callback, organizationId } = await setUp('approve');
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('authorized: the app called the API with its token\nYou can close this window.\n');
    expect(await script.exited()).toBe(0);
    expect(JSON.parse(script.stdout().trim().split('\n').at(-1) ?? '')).toEqual({ organizationId, integrations: [] });
  });

  it('refuses a callback whose state is not the one it sent, and reports a denial', async () => {
    const forged = await setUp('approve');
    const tampered = new URL(forged.callback);
    tampered.searchParams.set('state', 'forged');
    const refused = await fetch(tampered);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/^refused: the state does not match the one this app sent\n/);
    expect(await forged.script.exited()).toBe(1);
    // The forged callback's code was never exchanged: no grant exists for it.
    expect(await ctx.db.oauthGrants.countDocuments({ organizationId: new Types.ObjectId(forged.organizationId) }))
      .toBe(0);
    const denied = await setUp('deny');
    expect(new URL(denied.callback).searchParams.get('error')).toBe('access_denied');
    expect(await (await fetch(denied.callback)).text())
      .toMatch(/^the user did not authorize the app \(access_denied\)\n/);
    expect(await denied.script.exited()).toBe(1);
  });
});
