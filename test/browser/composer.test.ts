import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { expectNoSeriousViolations } from './accessibility-check.ts';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { startTestBlueskyPds, type PdsAccount, type TestBlueskyPds } from '../support/bluesky-pds.ts';
import { freePort } from '../support/free-port.ts';
import { makeSmallMedia, type SmallMedia } from '../support/small-media.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { signUpInChromium } from './browser-sign-up.ts';

const screenshot = path.join(import.meta.dirname, '..', '..', 'docs', 'screenshots', 'composer.png');
/** 350 characters: over Bluesky's 300, within Mastodon's 500. */
const tooLongForBluesky = 'Long thread part. '.repeat(20).slice(0, 350);

/**
 * A person composes one thread for a Mastodon channel (the simulator) and a Bluesky channel (the
 * reference PDS), both connected from the dashboard: htmx's live check shows Bluesky's refusal at
 * the part it concerns, they fix it and publish now, and the thread reaches both platforms.
 */
describe('the composer, in chromium', () => {
  const mastodon = new MastodonSimulator();
  let pds: TestBlueskyPds;
  let blueskyAccount: PdsAccount;
  let ctx: TestContext;
  let stack: RunningStack;
  let browser: Browser;
  let page: Page;
  let media: SmallMedia;
  /** What chromium refused under the dashboard's CSP: htmx and the islands must need nothing of it. */
  const refusedByCsp: string[] = [];

  beforeAll(async () => {
    await mastodon.start();
    media = makeSmallMedia();
    pds = await startTestBlueskyPds();
    blueskyAccount = await pds.createAccount('composer');
    const port = await freePort();
    const origin = `http://127.0.0.1:${String(port)}`;
    // Uploads served by this api, so the composer's tiles and previews show the real pictures.
    ctx = await createTestContext({
      FRONTEND_URL: origin, UPLOADS_PUBLIC_URL: `${origin}/uploads`, PLATFORM_TIMEOUT_MS: '5000',
    });
    stack = await startStack(ctx, { port });
    browser = await launchChromium();
    const viewport = { width: 1400, height: 1000 };
    page = await (await browser.newContext({ baseURL: stack.baseUrl, viewport })).newPage();
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) refusedByCsp.push(message.text());
    });
    await signUpInChromium(page, 'composer');
  }, 120_000);
  afterAll(async () => {
    await browser.close();
    await stack.close();
    await ctx.cleanup();
    await mastodon.stop();
    await pds.close();
    media.remove();
  });

  it('connects a Mastodon channel and a Bluesky channel from the dashboard', async () => {
    await page.goto('/channels/connect/mastodon');
    await page.getByLabel('Your Mastodon server').fill(mastodon.origin);
    await page.getByRole('button', { name: 'Continue to Mastodon' }).click();
    await page.waitForURL(/\/channels\?connected=/);
    await page.goto('/channels/connect/bluesky');
    await page.getByLabel('Handle').fill(blueskyAccount.handle);
    await page.getByLabel('App password').fill(blueskyAccount.appPassword);
    await page.getByLabel('Hosting provider').fill(pds.url);
    await page.getByRole('button', { name: 'Connect Bluesky' }).click();
    await page.waitForURL(/\/channels\?connected=/);
    expect(await page.locator('table tbody tr').count()).toBe(2);
  });

  it('shows Bluesky\'s refusal beside the part it concerns while the person types', async () => {
    await page.getByRole('link', { name: 'Compose', exact: true }).click();
    await page.waitForURL('**/compose');
    await page.getByLabel('Part 1: the post').fill('Hello from the composer #sps, see https://example.org');
    // htmx adds the part in place: the page is not reloaded, so this mark survives.
    await page.evaluate('window.composerMark = 1');
    await page.getByRole('button', { name: 'Add a thread part' }).click();
    await page.getByLabel('Part 2: reply or comment').fill(tooLongForBluesky);
    expect(await page.evaluate('window.composerMark')).toBe(1);
    await page.getByRole('checkbox', { name: /Mastodon, UTC/ }).check();
    await page.getByRole('checkbox', { name: /Bluesky, UTC/ }).check();
    // Uploaded in place: the file joins the library, attached to part 1, and gets its alt text.
    const card = { name: 'card.png', mimeType: 'image/png', buffer: readFileSync(media.png) };
    await page.locator('#media-file').setInputFiles(card);
    await page.locator('#uploads').getByText('card.png: uploaded').waitFor();
    const tile = page.locator('.media-tile', { hasText: 'Image: card.png' });
    expect(await tile.getByLabel('Attach to').inputValue()).toBe('0');
    await tile.getByLabel('Alt text').fill('A test card');
    await page.locator('#composer-checks img[alt="A test card"]').first().waitFor();

    const partTwoProblems = page.locator('#part-problems-1');
    await expect.poll(() => partTwoProblems.textContent(), { timeout: 10_000 }).toContain('Bluesky allows 300');
    expect(await page.locator('#part-problems-0').textContent()).toBe('');
    const checks = page.locator('#composer-checks');
    expect(await checks.textContent()).toContain('Part 2: 350 / 300 characters · 50 over');
    expect(await checks.textContent()).toContain('Part 2: 350 / 500 characters · 150 left');
    expect(await checks.locator('.preview .tag').first().textContent()).toBe('#sps');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(refusedByCsp).toEqual([]);
  });

  it('has no serious or critical accessibility problem, in light and dark colours', async () => {
    await expectNoSeriousViolations(page);
  });

  it('publishes the fixed thread now and lists it with the posts; both platforms receive it', async () => {
    await page.getByLabel('Part 2: reply or comment').fill('A short reply.');
    await expect.poll(() => page.locator('#composer-status').textContent(), { timeout: 10_000 }).toBe('Ready to send.');
    expect(await page.locator('#part-problems-1').textContent()).toBe('');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL(/\/posts\?from=/);
    expect(await page.locator('table tbody tr').count()).toBe(2);
    expect(await page.locator('table').textContent()).toContain('Hello from the composer');
    const published = await waitFor(async () => {
      const records = await pds.posts(blueskyAccount);
      return records.length === 2 && mastodon.statuses.length === 2 ? records : undefined;
    }, { timeoutMs: 30_000, what: 'the thread on both platforms' });
    expect(published.map((record) => record.value.text).sort()).toEqual(
      ['A short reply.', 'Hello from the composer #sps, see https://example.org'],
    );
    const root = published.find((record) => record.value.text.startsWith('Hello'));
    expect(root?.value).toMatchObject({ embed: { images: [{ alt: 'A test card' }] } });
  });

  it('takes files dropped on the media zone into the library; a video shows its poster frame', async () => {
    await page.goto('/compose');
    const png = readFileSync(media.png).toString('base64');
    const mp4 = readFileSync(media.mp4).toString('base64');
    await page.evaluate(`(() => {
      const bytes = (data) => Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const file = (data, name, type) => new File([bytes(data)], name, { type });
      const transfer = new DataTransfer();
      transfer.items.add(file('${png}', 'dropped.png', 'image/png'));
      transfer.items.add(file('${mp4}', 'clip.mp4', 'video/mp4'));
      const zone = document.getElementById('media-drop');
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    })()`);
    await page.locator('#uploads').getByText('dropped.png: uploaded').waitFor();
    await page.locator('#uploads').getByText('clip.mp4: uploaded').waitFor();
    const video = page.locator('.media-tile', { hasText: 'Video: clip.mp4' });
    expect(await video.locator('img').getAttribute('src')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/uploads\//);
    await page.getByLabel('Part 1: the post').fill('A clip');
    await page.getByRole('checkbox', { name: /Bluesky, UTC/ }).check();
    await page.locator('#composer-checks .video-mark').first().waitFor();
    await page.reload();
    expect(await page.locator('#media-grid').textContent()).toContain('dropped.png');
  });

  it('works without JavaScript: the refusal comes back with the form, then the post is sent', async () => {
    const plain = await (await browser.newContext({ baseURL: stack.baseUrl, javaScriptEnabled: false })).newPage();
    await plain.context().addCookies(await page.context().cookies());
    await plain.goto('/compose');
    await plain.getByLabel('Part 1: the post').fill(tooLongForBluesky);
    await plain.getByRole('checkbox', { name: /Bluesky, UTC/ }).check();
    await plain.getByRole('radio', { name: 'Save as a draft' }).check();
    await plain.getByRole('button', { name: 'Check' }).click();
    expect(await plain.locator('#part-problems-0').textContent()).toBe('');
    await plain.getByRole('radio', { name: 'Now' }).check();
    await plain.getByRole('button', { name: 'Send', exact: true }).click();
    expect(await plain.locator('#part-problems-0').textContent()).toContain('Bluesky allows 300');
    await plain.getByLabel('Part 1: the post').fill('Sent without JavaScript');
    await plain.getByRole('button', { name: 'Send', exact: true }).click();
    await plain.waitForURL(/\/posts\?from=/);
    expect(await plain.locator('table').textContent()).toContain('Sent without JavaScript');
  });
});
