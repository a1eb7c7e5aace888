import { Types } from 'mongoose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { signUpInChromium } from './browser-sign-up.ts';

/**
 * A person with 30 files in the library reaches the older ones from the composer: htmx adds them
 * in place (the page is not reloaded, the cursor goes to the first new file), a file picked there
 * stays picked when the composer is redrawn, and the post is sent with it; without JavaScript the
 * same button brings the composer back with them.
 */
describe('the composer\'s library, in chromium', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let browser: Browser;
  let page: Page;
  let organizationId = '';
  const ids: string[] = [];
  const refusedByCsp: string[] = [];
  const id = (index: number): string => ids[index] ?? '';

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    browser = await launchChromium();
    page = await (await browser.newContext({ baseURL: stack.baseUrl })).newPage();
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) refusedByCsp.push(message.text());
    });
    const account = await signUpInChromium(page, 'library');
    const user = await ctx.db.users.findOne({ email: account.email }).lean();
    organizationId = user?.organizationIds[0]?.toString() ?? '';
    await ctx.db.channels.create({
      organizationId: new Types.ObjectId(organizationId), provider: 'bluesky', name: 'Library Bluesky',
      profile: 'ada.test', tokenSealed: ctx.secrets.seal('token'), timeZone: 'Europe/Berlin',
    });
    for (let index = 0; index < 30; index += 1) {
      const name = `file-${String(index).padStart(2, '0')}.png`;
      ids.push((await ctx.db.media.create({
        organizationId: new Types.ObjectId(organizationId), name, originalName: name, status: 'ready',
        path: `http://127.0.0.1:9/uploads/${name}`, mimeType: 'image/png', size: 2048, width: 64, height: 48,
      }))._id.toString());
    }
  }, 120_000);
  afterAll(async () => {
    await browser.close();
    await stack.close();
    await ctx.cleanup();
  });

  it('adds the older files in place, keeps a pick from them when redrawn, and sends it', async () => {
    await page.goto('/compose');
    const tiles = page.locator('#media-grid .media-tile');
    expect(await tiles.count()).toBe(24);
    await page.evaluate('window.libraryMark = 1');
    await page.getByRole('button', { name: 'Show older files' }).click();
    await expect.poll(() => tiles.count()).toBe(30);
    expect(await page.evaluate('window.libraryMark')).toBe(1);
    expect(await page.evaluate('document.activeElement?.id')).toBe(`media-${id(5)}-part`);
    expect(await page.getByRole('button', { name: 'Show older files' }).count()).toBe(0);
    expect(await page.locator('input[name="mediaBefore"]').count()).toBe(0);

    await page.locator(`#media-${id(2)}-part`).selectOption('0');
    await page.locator(`#media-${id(2)}-alt`).fill('An old card');
    await page.getByLabel('Part 1: the post').fill('An older file');
    // htmx redraws the composer: the older files, the pick and its alt text stay.
    await page.getByRole('button', { name: 'Add a thread part' }).click();
    await page.getByLabel('Part 2: reply or comment').waitFor();
    expect(await tiles.count()).toBe(30);
    expect(await page.locator(`#media-${id(2)}-part`).inputValue()).toBe('0');
    await page.getByRole('button', { name: 'Remove part 2' }).click();
    await expect.poll(() => page.locator('textarea[name="part"]').count()).toBe(1);
    await page.getByRole('checkbox', { name: /Library Bluesky/ }).check();
    await page.getByRole('radio', { name: 'Save as a draft' }).check();
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL(/\/posts\?from=/);
    const draft = await ctx.db.posts.findOne({ content: 'An older file' }).lean();
    expect(draft?.media).toEqual([{ id: id(2), path: 'http://127.0.0.1:9/uploads/file-02.png', alt: 'An old card',
      thumbnail: null }]);
    expect(refusedByCsp).toEqual([]);
  });

  it('shows the older files without JavaScript, keeping what was typed', async () => {
    const plain = await (await browser.newContext({ baseURL: stack.baseUrl, javaScriptEnabled: false })).newPage();
    await plain.context().addCookies(await page.context().cookies());
    await plain.goto('/compose');
    await plain.getByLabel('Part 1: the post').fill('Typed before');
    await plain.getByRole('button', { name: 'Show older files' }).click();
    expect(await plain.locator('#media-grid .media-tile').count()).toBe(30);
    expect(await plain.getByLabel('Part 1: the post').inputValue()).toBe('Typed before');
    expect(await plain.locator(`#media-${id(5)}-part`).getAttribute('autofocus')).toBe('');
    await plain.close();
  });
});
