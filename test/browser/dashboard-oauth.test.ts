import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbackServer, logoSize } from './callback-server.ts';
import { launchChromium } from './chromium.ts';
import { newAccount } from './dashboard-client.ts';
import { api } from '../support/fixtures.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

const screenshotDir = path.join(import.meta.dirname, '..', '..', 'test-output');

/**
 * The whole OAuth story in a real browser: an app developer (owner) and a user who approves the
 * app, each in their own browser context. The steps build on each other and run in order.
 */
describe('dashboard and OAuth consent in chromium', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let browser: Browser;
  let ownerContext: BrowserContext;
  let userContext: BrowserContext;
  let owner: Page;
  let user: Page;
  const callback = new CallbackServer();
  const app = { clientId: '', secret: '', name: 'Scheduler Deluxe' };
  const tokens: string[] = [];

  beforeAll(async () => {
    await callback.start();
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    browser = await launchChromium();
    ownerContext = await browser.newContext({ baseURL: stack.baseUrl });
    await ownerContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
    userContext = await browser.newContext({ baseURL: stack.baseUrl });
    owner = await ownerContext.newPage();
    user = await userContext.newPage();
  });
  afterAll(async () => {
    await browser.close();
    await stack.close();
    await ctx.cleanup();
    await callback.stop();
  });

  /** A working credential: `/is-connected` says so, and `/integrations` lists the (still empty) channels. */
  const expectAccepted = async (credential: string): Promise<void> => {
    const connected = await api(stack.baseUrl, credential, '/api/public/v1/is-connected');
    expect(connected).toMatchObject({ status: 200, body: { connected: true } });
    const channels = await api(stack.baseUrl, credential, '/api/public/v1/integrations');
    expect(channels).toMatchObject({ status: 200, body: [] });
  };
  const expectRefused = async (credential: string): Promise<void> => {
    const channels = await api(stack.baseUrl, credential, '/api/public/v1/integrations');
    expect(channels).toMatchObject({ status: 401, body: { error: 'invalid_credentials' } });
  };
  const exchange = (code: string, secret: string) => api(stack.baseUrl, null, '/api/oauth/token', { method: 'POST', body: { grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: secret } });
  const consentPath = (state: string, clientId = app.clientId): string => `/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', state }).toString()}`;

  async function signUp(page: Page, account: { email: string; password: string; organization: string }): Promise<void> {
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByLabel('Organization name').fill(account.organization);
    await page.getByRole('button', { name: 'Sign up' }).click();
  }

  /** The user approves on the consent page; returns the query the app's redirect URL received. */
  async function authorize(state: string): Promise<URLSearchParams> {
    await user.goto(consentPath(state));
    await user.getByRole('button', { name: 'Authorize' }).click();
    await user.waitForURL(`${callback.redirectUrl}?**`);
    return callback.last;
  }

  async function tokenFor(code: string, secret = app.secret): Promise<string> {
    const answer = await exchange(code, secret);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'bearer', access_token: expect.stringMatching(/^pos_/) as unknown });
    return (answer.body as { access_token: string }).access_token;
  }

  it('signs the owner up and lands on the settings page', async () => {
    await owner.goto('/');
    await expect.poll(() => owner.url()).toBe(`${stack.baseUrl}/login`);
    await owner.getByRole('link', { name: 'Sign up' }).click();
    await signUp(owner, newAccount('owner'));
    await owner.waitForURL('**/settings');
    expect(await owner.getByRole('heading', { level: 1 }).textContent()).toBe('Settings');
  });

  it('reveals, copies and rotates the API key; the old key stops working at once', async () => {
    await owner.getByRole('button', { name: 'Reveal API key' }).click();
    const oldKey = (await owner.locator('#api-key').textContent()) ?? '';
    expect(oldKey).toMatch(/^sps_/);
    await owner.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => owner.evaluate<string>('navigator.clipboard.readText()')).toBe(oldKey);
    await expectAccepted(oldKey);

    await owner.getByRole('button', { name: 'Rotate API key' }).click();
    await owner.getByText('The previous key no longer works').waitFor();
    const newKey = (await owner.locator('#api-key').textContent()) ?? '';
    expect(newKey).toMatch(/^sps_/);
    expect(newKey).not.toBe(oldKey);
    await expectRefused(oldKey);
    await expectAccepted(newKey);
  });

  it('registers an OAuth app and shows its secret once', async () => {
    await owner.getByRole('link', { name: 'OAuth app' }).click();
    await owner.getByLabel('App name').fill(app.name);
    await owner.getByLabel('Description').fill('Plans your posts for the week.');
    await owner.getByLabel('Picture URL').fill(callback.pictureUrl);
    await owner.getByLabel('Redirect URL').fill(callback.redirectUrl);
    await owner.getByRole('button', { name: 'Register app' }).click();
    app.clientId = (await owner.locator('#client-id').textContent()) ?? '';
    app.secret = (await owner.locator('#client-secret').textContent()) ?? '';
    expect(app.clientId).toMatch(/^pca_/);
    expect(app.secret).toMatch(/^pcs_/);
    await owner.reload();
    await owner.goto('/oauth-app');
    expect(await owner.content()).not.toContain(app.secret);
  });

  it('sends a logged-out user through sign-up back to the consent screen, and the approval round-trips the state', async () => {
    await user.goto(consentPath('first-state'));
    await user.waitForURL('**/login?return_to=**');
    await user.getByRole('link', { name: 'Sign up' }).click();
    await signUp(user, newAccount('approver'));
    await expect.poll(() => user.url()).toBe(`${stack.baseUrl}${consentPath('first-state')}`);

    await expect.poll(() => user.evaluate<number>("document.querySelector('img.app-picture').naturalWidth")).toBe(logoSize);
    mkdirSync(screenshotDir, { recursive: true });
    await user.screenshot({ path: path.join(screenshotDir, 'consent-screen.png'), fullPage: true });
    expect(await user.getByRole('heading', { name: app.name, exact: true }).isVisible()).toBe(true);
    expect(await user.getByText('Plans your posts for the week.').isVisible()).toBe(true);
    expect(await user.getByRole('button', { name: 'Authorize' }).isVisible()).toBe(true);
    expect(await user.getByRole('button', { name: 'Deny' }).isVisible()).toBe(true);

    await user.getByRole('button', { name: 'Authorize' }).click();
    await user.waitForURL(`${callback.redirectUrl}?**`);
    expect(callback.last.get('state')).toBe('first-state');
    const code = callback.last.get('code') ?? '';
    expect(code).not.toBe('');
    const token = await tokenFor(code);
    await expectAccepted(token);
    // The app sending the same code again is a replay (RFC 6749 §4.1.2): refused, and the token it got is revoked.
    expect(await exchange(code, app.secret)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await expectRefused(token);
    tokens.push(await tokenFor((await authorize('second-state')).get('code') ?? ''));
    await expectAccepted(tokens[0] ?? '');
  });

  it('sends a denial back with error=access_denied and the state', async () => {
    await user.goto(consentPath('deny-state'));
    await user.getByRole('button', { name: 'Deny' }).click();
    await user.waitForURL(`${callback.redirectUrl}?**`);
    expect(Object.fromEntries(callback.last)).toEqual({ error: 'access_denied', state: 'deny-state' });
  });

  it('shows an error page for an unknown client and does not redirect', async () => {
    const before = callback.received.length;
    const response = await user.goto(consentPath('lost', 'pca_0123456789abcdef0123456789abcdef'));
    expect(response?.status()).toBe(400);
    expect(user.url()).toContain(`${stack.baseUrl}/oauth/authorize`);
    expect(await user.getByText('is not registered with SPS').isVisible()).toBe(true);
    expect(callback.received.length).toBe(before);
  });

  it('rotates the client secret: the old secret is refused, issued tokens keep working', async () => {
    const oldSecret = app.secret;
    await owner.goto('/oauth-app');
    await owner.getByRole('button', { name: 'Rotate client secret' }).click();
    app.secret = (await owner.locator('#client-secret').textContent()) ?? '';
    expect(app.secret).toMatch(/^pcs_/);
    expect(app.secret).not.toBe(oldSecret);

    const code = (await authorize('after-rotation')).get('code') ?? '';
    const refused = await exchange(code, oldSecret);
    expect(refused).toMatchObject({
      status: 401,
      body: { error: 'invalid_client', error_description: 'client authentication failed' },
    });
    await expectAccepted(tokens[0] ?? '');
    tokens.push(await tokenFor(code));
  });

  it('lets the user revoke the app on the approved-apps page; its tokens die', async () => {
    await user.goto('/approved-apps');
    expect(await user.getByRole('table').getByText(app.name, { exact: true }).isVisible()).toBe(true);
    await user.getByRole('button', { name: `Revoke ${app.name}` }).click();
    await user.getByText('access was revoked').waitFor();
    expect(await user.getByText('You have not approved any app.').isVisible()).toBe(true);
    for (const token of tokens) await expectRefused(token);
  });

  it('lets the owner delete the app after a confirmation; new tokens die and the app leaves the user\'s list', async () => {
    const token = await tokenFor((await authorize('again')).get('code') ?? '');
    await expectAccepted(token);
    await user.goto('/approved-apps');
    expect(await user.getByRole('table').getByText(app.name, { exact: true }).isVisible()).toBe(true);

    await owner.goto('/oauth-app');
    await owner.getByRole('link', { name: 'Delete this app' }).click();
    expect(await owner.getByText('irreversible').isVisible()).toBe(true);
    expect(await owner.getByText('every access token issued through it stops working').isVisible()).toBe(true);
    await owner.getByRole('button', { name: 'Delete the app and revoke all its tokens' }).click();
    await owner.getByText('The app was deleted.').waitFor();
    expect(await owner.getByRole('button', { name: 'Register app' }).isVisible()).toBe(true);

    await expectRefused(token);
    await user.goto('/approved-apps');
    expect(await user.getByText(app.name).count()).toBe(0);
    expect(await user.getByText('You have not approved any app.').isVisible()).toBe(true);
    expect((await user.goto(consentPath('gone')))?.status()).toBe(400);
    expect(await user.getByText('is not registered with SPS').isVisible()).toBe(true);
  });
});
