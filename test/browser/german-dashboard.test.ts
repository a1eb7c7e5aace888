import type { Browser, Page } from 'playwright-core';
import { noCache } from '../../shared/cache/invalidation-bus.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { de } from '../../api/dashboard/i18n/messages-de.ts';
import { en, type MessageKey } from '../../api/dashboard/i18n/messages-en.ts';
import { createApiKey } from '../../shared/domain/api-keys/api-keys.ts';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { registerApp } from '../../shared/domain/oauth/oauth-apps.ts';
import { registerEndpoint } from '../../shared/domain/webhooks/webhook-endpoints.ts';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import { api } from '../support/fixtures.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { launchChromium } from './chromium.ts';
import { newAccount } from './dashboard-client.ts';

/**
 * English messages a German page must not show: those whose German differs, taken whole (a
 * message with placeholders is checked by the source scan in api/dashboard/i18n instead).
 */
const englishOnly = new Set<string>((Object.keys(en) as MessageKey[])
  .filter((key) => en[key] !== de[key] && !en[key].includes('{'))
  .map((key) => en[key]));

/** What a reader meets on the page: its text nodes and the names read out for its controls. */
const readableTexts = `(() => {
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent === null || parent.closest('script, style, code, pre, template') !== null) continue;
    // Text marked as English on purpose: what a platform's room or the API's domain writes.
    if ((parent.closest('[lang]')?.getAttribute('lang') || '').startsWith('en')) continue;
    const text = (node.textContent || '').trim();
    if (text !== '') texts.push(text);
  }
  for (const element of document.querySelectorAll('[aria-label], [title], [placeholder], img[alt]')) {
    if ((element.closest('[lang]')?.getAttribute('lang') || '').startsWith('en')) continue;
    for (const name of ['aria-label', 'title', 'placeholder', 'alt']) {
      const value = element.getAttribute(name);
      if (value) texts.push(value.trim());
    }
  }
  texts.push(document.title.replace(/ · SPS$/, ''));
  return texts;
})()`;

/**
 * Issue 35, item 6: a translation is one catalog file, and a browser asking for German gets the
 * whole dashboard in German. Chromium runs with the de-DE locale, so every request says
 * `Accept-Language: de-DE`; each page a person meets is checked for English left behind.
 */
describe('the dashboard in German, in chromium', () => {
  const world = useSimulatedStack({ workers: false });
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ baseURL: world.stack.baseUrl, locale: 'de-DE' })).newPage();
  });
  afterAll(async () => {
    await browser.close();
  });

  async function expectGerman(path: string): Promise<void> {
    const answer = await page.goto(path);
    expect(answer?.status(), path).toBeLessThan(500);
    expect(await page.getAttribute('html', 'lang'), path).toBe('de');
    const texts = await page.evaluate<string[]>(readableTexts);
    expect(texts.filter((text) => englishOnly.has(text)), path).toEqual([]);
  }

  it('speaks German on the pages a signed-out person sees, and on a missing page', async () => {
    for (const path of ['/login', '/signup', '/no-such-page']) await expectGerman(path);
    expect(await page.textContent('h1')).toBe(de['problem.notFound']);
  });

  it('speaks German on every signed-in page, the calendar\'s own month names included', async () => {
    const account = newAccount('german');
    await page.goto('/signup');
    await page.locator('input[name="email"]').fill(account.email);
    await page.locator('input[name="password"]').fill(account.password);
    await page.locator('input[name="organization"]').fill(account.organization);
    await page.locator('form[action="/signup"] button[type="submit"]').click();
    await page.waitForURL('**/settings');

    const user = await world.ctx.db.users.findOne({ email: account.email }).lean();
    const organizationId = user?.organizationIds[0]?.toString() ?? '';
    const { id: channelId } = await addTokenChannel(world.ctx.db, world.ctx.secrets, { allowPrivateNetwork: true }, {
      organizationId, provider: 'mastodon', name: 'Unser Mastodon', instanceUrl: world.simulator.origin,
      token: world.simulator.addAccount('german'),
    });
    const { db, secrets } = world.ctx;
    const deps = { db, secrets, userHosts: connectionPolicyFor(true), caches: noCache };
    const { endpoint } = await registerEndpoint(deps, organizationId, {
      url: 'https://hooks.example.com/sps', events: ['post.published'],
    });
    const { app } = await registerApp(world.ctx.db, world.ctx.secrets, organizationId, {
      name: 'Planer', redirectUrl: 'http://127.0.0.1:9/callback',
    });
    const { secret } = await createApiKey(world.ctx.db, world.ctx.secrets, organizationId, {
      name: 'tests', scopes: ['posts'], expiresAt: null,
    }, new Date());
    const created = await api(world.stack.baseUrl, secret, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'schedule', date: new Date(Date.now() + 86_400_000).toISOString(),
        posts: [{ integration: { id: channelId }, value: [{ content: 'Guten Morgen' }] }],
      },
    });
    expect(created.status).toBe(201);
    const postId = (created.body as { postId: string }[])[0]?.postId ?? '';

    const pages = [
      '/settings', '/channels', `/channels/${channelId}/schedule`, '/channels/connect/devto', '/compose',
      '/calendar', '/posts', `/posts/${postId}`, '/media', '/notifications', '/webhooks',
      `/webhooks/${endpoint.id}`, '/oauth-app', '/approved-apps',
      `/oauth/authorize?client_id=${app.clientId}&response_type=code&state=s`,
    ];
    for (const path of pages) await expectGerman(path);

    // FullCalendar names the month in German too: its locale comes with the page's language.
    await page.goto('/calendar');
    const month = new Intl.DateTimeFormat('de', { month: 'long', timeZone: 'UTC' }).format(new Date());
    await expect.poll(() => page.textContent('.fc-toolbar-title')).toContain(month);
  });
});
