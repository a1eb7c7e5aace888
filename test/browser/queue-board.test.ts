import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOperator } from '../../shared/domain/accounts/operators.ts';
import { publishJobId } from '../../shared/queue/queues.ts';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { organizationWithMastodon } from '../support/fixtures.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { launchChromium } from './chromium.ts';
import { newAccount } from './dashboard-client.ts';
import { signUpAs } from './browser-sign-up.ts';

/**
 * Bull Board at /admin/queues, in chromium: an operator (the stored flag, as `npm run
 * operator:grant` sets it) finds a failed publish job and retries it from the board; an account
 * that is not an operator gets 403 until the operator flag is set on it.
 */
describe('the queue board for operators, in chromium', () => {
  const operator = newAccount('operator');
  const member = newAccount('member');
  const simulator = new MastodonSimulator();
  let ctx: TestContext;
  let stack: RunningStack;
  let browser: Browser;

  beforeAll(async () => {
    await simulator.start();
    ctx = await createTestContext({ PUBLISH_BACKOFF_MS: '20' });
    stack = await startStack(ctx);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser.close();
    await stack.close();
    await ctx.cleanup();
    await simulator.stop();
  });

  async function signedUp(account: typeof operator): Promise<Page> {
    const context = await browser.newContext({ baseURL: stack.baseUrl });
    // The board's page names a web font on another host: nothing leaves the machine in tests.
    await context.route((url) => url.hostname !== '127.0.0.1', (route) => route.abort());
    const page = await context.newPage();
    await signUpAs(page, account);
    return page;
  }

  it('sends a signed-out visitor to log in', async () => {
    const page = await (await browser.newContext({ baseURL: stack.baseUrl })).newPage();
    await page.goto('/admin/queues');
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(new URL(page.url()).searchParams.get('return_to')).toBe('/admin/queues');
  });

  it('lets an operator see a failed publish job and retry it', async () => {
    const token = simulator.addAccount('boardfail');
    const org = await organizationWithMastodon(ctx, simulator.origin, token);
    simulator.failNext({ status: 422, body: { error: 'Validation failed: Text can\'t be blank' } });
    const postId = await publishNow(stack.baseUrl, org, ['Fails on the board']);
    expect((await settledParts(ctx.db, postId))[0]?.state).toBe('ERROR');
    const job = await waitFor(async () => {
      const found = await stack.publishQueue.getJob(publishJobId(postId));
      return (await found?.getState()) === 'failed' ? found : undefined;
    }, { what: 'the publish job to fail' });

    const page = await signedUp(operator);
    expect(await setOperator(ctx.db, operator.email.toUpperCase(), true)).toBe(true);
    await page.reload();
    expect(await page.getByRole('link', { name: 'Queues' }).count()).toBe(1);
    await page.goto('/admin/queues/queue/publish?status=failed');
    await page.getByText('Validation failed: Text can\'t be blank').first().waitFor();
    // The job's own actions sit beside its id (icon buttons: retry, duplicate, edit, remove).
    const card = page.locator('div')
      .filter({ has: page.getByText(`post-${postId}`) })
      .filter({ has: page.locator('svg.lucide-files') })
      .last();
    await card.locator('button:has(svg.lucide-refresh-cw)').click();
    // The board asks "Are you sure?" before acting.
    await page.getByRole('button', { name: 'Confirm' }).click();

    // The retried job runs again; the post already failed, so the run ends completed with nothing sent.
    const state = await waitFor(async () => {
      const current = await stack.publishQueue.getJob(job.id ?? '');
      const now = await current?.getState();
      return now === 'completed' ? now : undefined;
    }, { what: 'the retried job to run again' });
    expect(state).toBe('completed');
    expect(simulator.statuses.filter((status) => status.text === 'Fails on the board')).toHaveLength(0);
  });

  it('answers 403 to an account that is not an operator, until the operator flag is set on it', async () => {
    const page = await signedUp(member);
    expect(await page.getByRole('link', { name: 'Queues' }).count()).toBe(0);
    const refused = await page.goto('/admin/queues');
    expect(refused?.status()).toBe(403);
    expect(await page.getByRole('alert').textContent()).toContain('operators of this SPS deployment');
    const api = await page.request.put('/admin/queues/api/queues/publish/retry/failed');
    expect(api.status()).toBe(403);

    expect(await setOperator(ctx.db, member.email, true)).toBe(true);
    const allowed = await page.goto('/admin/queues');
    expect(allowed?.status()).toBe(200);
    // An operator's cookie sent by another site's page does not act on the queues.
    const crossSite = await page.request.put('/admin/queues/api/queues/publish/retry/failed', {
      headers: { Origin: 'https://elsewhere.example' },
    });
    expect(crossSite.status()).toBe(403);
    const sameSite = await page.request.put('/admin/queues/api/queues/publish/retry/failed', {
      headers: { Origin: stack.baseUrl },
    });
    expect(sameSite.status()).toBe(200);
  });
});
