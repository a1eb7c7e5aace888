import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { startFacebookSimulator, type FacebookSimulator } from '../simulators/facebook/facebook-simulator.ts';
import { startTelegramSimulator, type TelegramSimulator } from '../simulators/telegram/telegram-simulator.ts';
import { startXSimulator, type XSimulator } from '../simulators/x/x-simulator.ts';
import { freePort } from '../support/free-port.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { signUpInChromium } from './browser-sign-up.ts';

const botToken = '7012345678:AAHk-browser_token';

/**
 * A user connects their own channels in a real browser: an OAuth platform (X), a platform whose
 * account holds several targets to pick from (Facebook pages) and a credentials platform
 * (Telegram), each against its simulator, the platforms' consent pages included.
 */
describe('connecting channels from the dashboard, in chromium', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let browser: Browser;
  let page: Page;
  let x: XSimulator;
  let facebook: FacebookSimulator;
  let telegram: TelegramSimulator;

  beforeAll(async () => {
    [x, facebook, telegram] = await Promise.all([
      startXSimulator(),
      startFacebookSimulator(),
      startTelegramSimulator(),
    ]);
    x.addUser({
      id: '2244994945',
      name: 'Ada on X',
      username: 'ada',
      profile_image_url: 'https://pbs.twimg.com/ada.jpg',
    });
    x.authority.consentingUser = '2244994945';
    facebook.addPages('fb-user-1', [
      {
        id: '1001',
        name: 'Ada Bakery',
        pictureUrl: 'https://scontent.example/1001.jpg',
        tasks: ['CREATE_CONTENT', 'MANAGE'],
      },
      { id: '1002', name: 'Ada Books', pictureUrl: 'https://scontent.example/1002.jpg', tasks: ['CREATE_CONTENT'] },
    ]);
    facebook.authority.consentingUser = 'fb-user-1';
    telegram.addBot({ token: botToken, id: 7012345678, username: 'sps_bot', firstName: 'SPS' });
    telegram.addChat({
      id: -1001234567890,
      type: 'channel',
      title: 'Release notes',
      username: 'release_notes',
      members: new Map([[7012345678, { status: 'administrator', canPostMessages: true }]]),
    });
    const port = await freePort();
    ctx = await createTestContext({
      FRONTEND_URL: `http://127.0.0.1:${String(port)}`,
      X_CLIENT_ID: x.clientId,
      X_CLIENT_SECRET: x.clientSecret,
      X_API_URL: x.url,
      X_AUTH_URL: x.url,
      X_TOKEN_URL: x.url,
      FACEBOOK_CLIENT_ID: facebook.clientId,
      FACEBOOK_CLIENT_SECRET: facebook.clientSecret,
      FACEBOOK_API_URL: facebook.app.apiUrl,
      FACEBOOK_AUTH_URL: facebook.app.authUrl,
      FACEBOOK_TOKEN_URL: facebook.app.tokenUrl,
      TELEGRAM_API_URL: telegram.url,
    });
    stack = await startStack(ctx, { workers: false, port });
    browser = await launchChromium();
    page = await (await browser.newContext({ baseURL: stack.baseUrl })).newPage();
    await signUpInChromium(page, 'connect');
  });
  afterAll(async () => {
    await browser.close();
    await stack.close();
    await ctx.cleanup();
    await Promise.all([x.close(), facebook.close(), telegram.close()]);
  });

  const channelRows = () => page.locator('table tbody tr');

  it('offers a Connect button per platform and says which ones the operator has not configured', async () => {
    await page.goto('/channels');
    expect(await page.locator('ul.connect li').count()).toBe(27);
    expect(await page.getByRole('link', { name: 'Connect X', exact: true }).getAttribute('aria-disabled')).toBeNull();
    const linkedin = page.locator('ul.connect li', { hasText: 'Connect LinkedIn' }).first();
    expect(await linkedin.textContent()).toContain(
      'not configured: the operator sets LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET',
    );
  });

  it('connects X through X\'s consent page and comes back with the profile', async () => {
    await page.getByRole('link', { name: 'Connect X', exact: true }).click();
    await page.getByRole('button', { name: 'Continue to X' }).click();
    await page.waitForURL(/\/channels\?connected=/);
    expect(await channelRows().count()).toBe(1);
    const row = channelRows().first();
    expect(await row.textContent()).toContain('Ada on X');
    expect(await row.locator('.muted').first().textContent()).toBe('ada');
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('X');
  });

  it('shows X\'s words when the user declines, and saves nothing', async () => {
    x.authority.refuseConsent = true;
    try {
      await page.goto('/channels/connect/x');
      await page.getByRole('button', { name: 'Continue to X' }).click();
      await page.waitForURL(/\/channels\/callback\/x/);
      expect(await page.getByRole('alert').textContent()).toContain(
        'X did not authorize SPS: The user denied the request',
      );
    } finally {
      x.authority.refuseConsent = false;
    }
    await page.goto('/channels');
    expect(await channelRows().count()).toBe(1);
  });

  it('lets the user pick which Facebook page to connect', async () => {
    await page.goto('/channels/connect/facebook');
    await page.getByRole('button', { name: 'Continue to Facebook' }).click();
    await page.waitForURL(/\/channels\/pick\/facebook/);
    expect(await page.getByRole('radio').count()).toBe(2);
    await page.getByRole('radio', { name: 'Ada Books' }).check();
    await page.getByRole('button', { name: 'Connect this one' }).click();
    await page.waitForURL(/\/channels\?connected=/);
    expect(await channelRows().count()).toBe(2);
    expect(await page.locator('table').textContent()).toContain('Ada Books');
    expect(await page.locator('table').textContent()).not.toContain('Ada Bakery');
  });

  it('connects Telegram with the credentials form, showing Telegram\'s refusal of a wrong token first', async () => {
    await page.goto('/channels/connect/telegram');
    await page.getByLabel('Bot token').fill('7012345678:wrong');
    await page.getByLabel('Channel or group').fill('@release_notes');
    await page.getByRole('button', { name: 'Connect Telegram' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('Unauthorized');
    // The typed chat is kept; the token, a secret, is not echoed back.
    expect(await page.getByLabel('Channel or group').inputValue()).toBe('@release_notes');
    expect(await page.getByLabel('Bot token').inputValue()).toBe('');

    await page.getByLabel('Bot token').fill(botToken);
    await page.getByRole('button', { name: 'Connect Telegram' }).click();
    await page.waitForURL(/\/channels\?connected=/);
    expect(await channelRows().count()).toBe(3);
    expect(await page.locator('table').textContent()).toContain('Release notes');
  });

  it('reconnects X in place from the Reconnect link: same channel, new token', async () => {
    const before = await ctx.db.channels.findOne({ provider: 'x' }).lean();
    await page.goto('/channels');
    await page.getByRole('link', { name: 'Reconnect Ada on X' }).click();
    await page.getByRole('button', { name: 'Continue to X' }).click();
    await page.waitForURL(/\/channels\?connected=/);
    const after = await ctx.db.channels.find({ provider: 'x' }).lean();
    expect(after.map((channel) => channel._id.toString())).toEqual([before?._id.toString()]);
    expect(after[0]?.tokenSealed).not.toBe(before?.tokenSealed);
  });
});
