import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.ts';
import { expectNoSeriousViolations } from './accessibility-check.ts';
import { api } from '../support/fixtures.ts';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { makeSmallMedia, type SmallMedia } from '../support/small-media.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { createApiKey } from '../../shared/domain/api-keys/api-keys.ts';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { signUpInChromium } from './browser-sign-up.ts';

const screenshots = path.join(import.meta.dirname, '..', '..', 'docs', 'screenshots');
const dayMs = 86_400_000;

/** The UTC day of an instant as FullCalendar's day cells name it (the browser runs in UTC here). */
const dayOf = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * A person with a Mastodon channel (the simulator) and two scheduled posts: they drag one to
 * another day on the calendar (its date and BullMQ job move), open a failed post's page and retry
 * it, then delete it on the platform and see it gone from the simulator.
 */
describe('the calendar and the post page, in chromium', () => {
  const mastodon = new MastodonSimulator();
  let ctx: TestContext;
  let stack: RunningStack;
  let browser: Browser;
  let page: Page;
  let apiKey = '';
  let channelId = '';
  const cspProblems: string[] = [];
  let media: SmallMedia;

  beforeAll(async () => {
    await mastodon.start();
    media = makeSmallMedia();
    ctx = await createTestContext({ PUBLISH_ATTEMPTS: '1' });
    stack = await startStack(ctx);
    browser = await launchChromium();
    const viewport = { width: 1280, height: 900 };
    const context = await browser.newContext({ baseURL: stack.baseUrl, viewport, timezoneId: 'UTC' });
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspProblems.push(message.text());
    });
    const account = await signUpInChromium(page, 'calendar');
    // The channel and the key through the domain, as the dashboard's own pages would make them.
    const user = await ctx.db.users.findOne({ email: account.email }).lean();
    const organizationId = user?.organizationIds[0]?.toString() ?? '';
    const token = mastodon.addAccount('calendar');
    ({ id: channelId } = await addTokenChannel(ctx.db, ctx.secrets, { allowPrivateNetwork: true }, {
      organizationId, provider: 'mastodon', name: 'Our Mastodon', instanceUrl: mastodon.origin, token,
    }));
    ({ secret: apiKey } = await createApiKey(ctx.db, ctx.secrets, organizationId, {
      name: 'calendar test', scopes: ['posts'], expiresAt: null,
    }, new Date()));
  }, 120_000);
  afterAll(async () => {
    await browser.close();
    await stack.close();
    await ctx.cleanup();
    await mastodon.stop();
    media.remove();
  });

  async function post(type: 'schedule' | 'now', content: string, date?: Date): Promise<string> {
    const answer = await api(stack.baseUrl, apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type, date: date?.toISOString(), posts: [{ integration: { id: channelId }, value: [{ content }] }] },
    });
    expect(answer.status).toBe(201);
    return (answer.body as { postId: string }[])[0]?.postId ?? '';
  }

  async function fitsIn360(): Promise<void> {
    await page.setViewportSize({ width: 360, height: 800 });
    await page.reload();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.reload();
  }

  it('drags a scheduled post to another day: its publish date and its job move', async () => {
    const first = new Date(Date.now() + 2 * dayMs);
    first.setUTCHours(10, 0, 0, 0);
    const moving = await post('schedule', 'Moves a day later', first);
    await post('schedule', 'Stays where it is', new Date(first.getTime() + 3_600_000));
    await page.goto('/calendar');
    const event = page.locator('.fc-event', { hasText: 'Moves a day later' });
    await event.waitFor();
    // FullCalendar's injected <style> took the nonce: its rules apply under our CSP.
    const rules = "document.querySelector('style[data-fullcalendar]')?.sheet?.cssRules.length ?? 0";
    expect(await page.evaluate<number>(rules)).toBeGreaterThan(100);

    const target = new Date(first.getTime() + dayMs);
    const cell = page.locator(`td.fc-daygrid-day[data-date="${dayOf(target)}"]`);
    // The mouse acts on what is on screen: both days in view (they are in one or two adjacent weeks).
    await cell.scrollIntoViewIfNeeded();
    await event.scrollIntoViewIfNeeded();
    const from = await event.boundingBox();
    const to = await cell.boundingBox();
    if (from === null || to === null) throw new Error('the event or its target day is not on screen');
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 5, from.y + from.height / 2 + 5, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 15 });
    await page.mouse.up();
    await expect.poll(() => page.locator('#calendar-status').textContent()).toMatch(/^Moved "/);

    const stored = await ctx.db.posts.findById(moving).lean();
    expect(stored?.publishDate.toISOString()).toBe(target.toISOString());
    const job = await stack.publishQueue.getJob(`post-${moving}`);
    const due = (job?.timestamp ?? 0) + (job?.opts.delay ?? 0);
    expect(Math.abs(due - target.getTime())).toBeLessThan(5_000);
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: path.join(screenshots, 'calendar.png'), fullPage: true });
  });

  it('shows week and list views, and is usable with the keyboard and at 360 px', async () => {
    await page.getByRole('button', { name: 'Week' }).click();
    await page.locator('.fc-timeGridWeek-view').waitFor();
    await page.getByRole('button', { name: 'List' }).click();
    await page.locator('.fc-list').waitFor();
    await page.getByRole('button', { name: 'Month' }).click();
    await page.getByLabel('State').focus();
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate<string>('document.activeElement?.id')).toBe('filter-channel');
    // Each post is a link to its page, reached with Tab, with a visible focus ring.
    await page.locator('a.fc-event').first().focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    const ring = await page.evaluate<{ href: string | null; outline: string }>(
      '({ href: document.activeElement.getAttribute("href"), '
        + 'outline: getComputedStyle(document.activeElement).outlineStyle })',
    );
    expect(ring.href).toMatch(/^\/posts\/[0-9a-f]{24}$/);
    expect(ring.outline).not.toBe('none');
    await expectNoSeriousViolations(page);
    await fitsIn360();
  });

  it('retries a failed post from its page; it then publishes', async () => {
    mastodon.failNext({ status: 422, body: { error: 'Validation failed: Text is invalid' } });
    const failed = await post('now', 'Failed once, then retried');
    await waitFor(async () => ((await ctx.db.posts.findById(failed).lean())?.state === 'ERROR' ? true : undefined),
      { what: 'the post to fail' });
    await page.goto('/calendar');
    await page.locator('.failed-posts').getByRole('link', { name: /Failed once, then retried/ }).click();
    await page.waitForURL(`**/posts/${failed}`);
    expect(await page.getByRole('alert').textContent()).toMatch(/^Failed \(/);
    expect(await page.locator('ol.attempts li').count()).toBeGreaterThan(0);
    await expectNoSeriousViolations(page);
    await page.getByRole('button', { name: 'Retry the failed parts' }).click();
    await page.waitForURL(`**/posts/${failed}`);
    await waitFor(async () => ((await ctx.db.posts.findById(failed).lean())?.state === 'PUBLISHED' ? true : undefined),
      { what: 'the retried post to publish' });
    expect(mastodon.statuses.some((status) => status.text.includes('Failed once, then retried'))).toBe(true);
    await page.reload();
    expect(await page.getByRole('link', { name: 'View on the platform' }).count()).toBe(1);
    await page.screenshot({ path: path.join(screenshots, 'post-page.png'), fullPage: true });
    await fitsIn360();
  });

  it('deletes the post on the platform: the page shows it removed and the simulator no longer has it', async () => {
    await page.getByLabel(/Also delete it on the platform/).check();
    await page.getByRole('button', { name: 'Delete this post' }).click();
    await expect.poll(async () => {
      await page.reload();
      return page.locator('section[aria-labelledby="removal-heading"] tbody td').first().textContent();
    }, { timeout: 15_000 }).toMatch(/^removed/);
    expect(mastodon.statuses.some((status) => status.text.includes('Failed once, then retried'))).toBe(false);
    expect(cspProblems).toEqual([]);
  });

  it('moves a scheduled post with the keyboard from its page', async () => {
    const id = await post('schedule', 'Moved by keyboard', new Date(Date.now() + 4 * dayMs));
    await page.goto(`/posts/${id}`);
    const target = new Date(Date.now() + 6 * dayMs);
    target.setUTCHours(8, 30, 0, 0);
    const field = page.getByLabel('New publish date and time (UTC)');
    await field.fill(target.toISOString().slice(0, 16));
    await field.press('Enter');
    await page.waitForURL(`**/posts/${id}`);
    await expect.poll(async () => (await ctx.db.posts.findById(id).lean())?.publishDate.toISOString())
      .toBe(target.toISOString());
  });

  it('edits a scheduled post from its page (same id), and duplicates a published one as a second post', async () => {
    const id = await post('schedule', 'Before the edit', new Date(Date.now() + 3 * dayMs));
    await page.goto(`/posts/${id}`);
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.waitForURL(`**/compose?post=${id}`);
    expect(await page.locator('#composer-origin').textContent()).toContain('Editing post');
    const text = page.getByLabel('Part 1: the post');
    expect(await text.inputValue()).toBe('Before the edit');
    await text.fill('After the edit, same post');
    await expectNoSeriousViolations(page);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL(`**/posts/${id}`);
    expect(await page.locator('.part-content').first().textContent()).toBe('After the edit, same post');
    expect((await ctx.db.posts.findById(id).lean())?.state).toBe('QUEUE');
    expect(await ctx.db.posts.countDocuments({ content: 'Before the edit' })).toBe(0);
    expect(await stack.publishQueue.getJob(`post-${id}`)).toBeDefined();

    const published = await post('now', 'Published, then duplicated');
    const stateOf = async () => (await ctx.db.posts.findById(published).lean())?.state;
    await waitFor(async () => ((await stateOf()) === 'PUBLISHED' ? true : undefined), { what: 'the post to publish' });
    await page.goto(`/posts/${published}`);
    expect(await page.getByRole('link', { name: 'Edit', exact: true }).count()).toBe(0);
    await page.getByRole('link', { name: 'Duplicate', exact: true }).click();
    await page.waitForURL(`**/compose?post=${published}&copy=1`);
    expect(await page.getByLabel('Part 1: the post').inputValue()).toBe('Published, then duplicated');
    expect(await page.getByRole('checkbox', { name: /Our Mastodon/ }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.waitForURL('**/posts?from=*');
    const copies = await ctx.db.posts.find({ content: 'Published, then duplicated', rootPostId: null }).lean();
    expect(copies.map((copy) => copy._id.toString())).toContain(published);
    expect(copies).toHaveLength(2);
    expect(cspProblems).toEqual([]);
  });

  it('uploads a file on the media page and shows it with its facts, accessible and usable at 360 px', async () => {
    await page.getByRole('link', { name: 'Media' }).click();
    await page.waitForURL('**/media');
    await page.getByLabel('Upload images or an MP4 video').setInputFiles(media.png);
    await page.locator('.media-tile', { hasText: 'image.png' }).waitFor();
    expect(await page.locator('.media-tile', { hasText: 'image.png' }).textContent()).toContain('64 × 48');
    await expectNoSeriousViolations(page);
    await fitsIn360();
    expect(cspProblems).toEqual([]);
  });

  it('shows each channel\'s health on the channels page, accessible and usable at 360 px', async () => {
    await page.getByRole('link', { name: 'Channels' }).click();
    await page.waitForURL('**/channels');
    expect(await page.getByRole('heading', { name: 'Our Mastodon: Healthy' }).isVisible()).toBe(true);
    await expectNoSeriousViolations(page);
    await fitsIn360();
  });
});
