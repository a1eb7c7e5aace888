import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revealApiKey } from '../../../shared/domain/accounts/accounts.ts';
import { addTokenChannel } from '../../../shared/domain/channels/channels.ts';
import { publishJobId } from '../../../shared/queue/queues.ts';
import { MastodonSimulator } from '../../../test/simulators/mastodon/mastodon-simulator.ts';
import { DashboardClient, newAccount } from '../../../test/browser/dashboard-client.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { publishNow, settledParts } from '../../../test/support/publish-now.ts';
import { startStack, waitFor, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

const mastodonScopes = ['read:accounts', 'read:statuses', 'write:statuses', 'write:media'];

describe('GET /integrations/:id/health', () => {
  const simulator = new MastodonSimulator();
  let ctx: TestContext;
  let stack: RunningStack;

  beforeAll(async () => {
    await simulator.start();
    ctx = await createTestContext();
    stack = await startStack(ctx);
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await simulator.stop();
  });

  const health = (org: { apiKey: string }, channelId: string) =>
    api(stack.baseUrl, org.apiKey, `/api/public/v1/integrations/${channelId}/health`);

  /** A Mastodon channel of its own organization, with a token the simulator accepts. */
  const newOrganization = (username: string) =>
    organizationWithMastodon(ctx, simulator.origin, simulator.addAccount(username));

  it('says healthy with nothing to do, and reports the last publication and the scopes the room needs', async () => {
    const org = await newOrganization('healthy');
    const postId = await publishNow(stack.baseUrl, org, ['Healthy and published']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');

    const answer = await health(org, org.channelId);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id: org.channelId,
      identifier: 'mastodon',
      status: 'healthy',
      summary: 'Healthy',
      disabled: false,
      refreshNeeded: false,
      token: { expiresAt: null, expired: false, renewable: false, lastRefreshedAt: null },
      scopes: { required: mastodonScopes, granted: null, missing: null },
      lastPublish: {
        postId,
        state: 'PUBLISHED',
        at: root?.publishedAt?.toISOString(),
        releaseURL: root?.releaseURL,
        error: null,
      },
      rateLimit: { limited: false, until: null, postsWaiting: 0 },
      actions: [{ code: 'none', message: 'Nothing to do: the channel can publish.' }],
    });
  });

  it('says reconnect once the platform refused the channel\'s token, with the failed post\'s error', async () => {
    const token = simulator.addAccount('refused');
    const org = await organizationWithMastodon(ctx, simulator.origin, token);
    simulator.revoke(token);
    const postId = await publishNow(stack.baseUrl, org, ['Refused']);
    expect((await settledParts(ctx.db, postId))[0]?.state).toBe('ERROR');

    const answer = await health(org, org.channelId);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'needs_reconnect',
      summary: 'Reconnect needed',
      refreshNeeded: true,
      lastPublish: {
        postId, state: 'ERROR', error: { code: 'publish_failed', message: 'The access token is invalid' },
      },
      actions: [{
        code: 'reconnect', message: 'Reconnect the channel: the platform refused the channel\'s credentials.',
      }],
    });
  });

  it('says reconnect for an expired token the platform gave no way to renew', async () => {
    const org = await newOrganization('expired');
    const expiredAt = new Date(Date.now() - 60_000);
    await ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { tokenExpiresAt: expiredAt } });

    const answer = await health(org, org.channelId);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'needs_reconnect',
      refreshNeeded: false,
      token: { expiresAt: expiredAt.toISOString(), expired: true, renewable: false },
      lastPublish: null,
      actions: [{
        code: 'reconnect',
        message: `Reconnect the channel: its access token expired at ${expiredAt.toISOString()} and cannot be renewed.`,
      }],
    });
  });

  it('answers 404 not_found for another organization\'s channel, and for an id that is no channel', async () => {
    const owner = await newOrganization('owner');
    const stranger = await newOrganization('stranger');
    expect((await health(owner, owner.channelId)).status).toBe(200);

    for (const id of [owner.channelId, '000000000000000000000000']) {
      const answer = await health(stranger, id);
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ error: 'not_found', message: expect.stringContaining(id) as string });
    }
  });

  it('says rate limited until the platform\'s reset, in the API and in the dashboard\'s channel list', async () => {
    // A dashboard account's organization, so its channel list can be read as the user sees it.
    const account = newAccount('health');
    const browser = new DashboardClient(stack.baseUrl);
    await browser.signUp(account);
    const user = await ctx.db.users.findOne({ email: account.email }).lean();
    const organizationId = user?.organizationIds[0]?.toString() ?? '';
    const apiKey = await revealApiKey(ctx.db, ctx.secrets, organizationId);
    const addChannel = async (name: string) => {
      const added = await addTokenChannel(ctx.db, ctx.secrets, { allowPrivateNetwork: true }, {
        organizationId, provider: 'mastodon', name, instanceUrl: simulator.origin, token: simulator.addAccount(name),
      });
      return added.id;
    };
    const throttledId = await addChannel('throttled');
    const refusedId = await addChannel('refusedlisted');
    await addChannel('healthylisted');
    await ctx.db.channels.updateOne({ _id: refusedId }, { $set: { refreshNeeded: true } });

    // Mastodon's 429 names when its window reopens; the worker delays the job until then.
    const resetAt = new Date(Date.now() + 10 * 60_000);
    simulator.failNext({
      status: 429,
      body: { error: 'Too many requests' },
      headers: { 'X-RateLimit-Limit': '300', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': resetAt.toISOString() },
    });
    const postId = await publishNow(stack.baseUrl, { apiKey, channelId: throttledId }, ['Held by a 429']);
    await waitFor(async () => {
      const job = await stack.publishQueue.getJob(publishJobId(postId));
      const delayed = job !== undefined && (await job.getState()) === 'delayed';
      return delayed && (job.data as { rateLimitDelays?: number }).rateLimitDelays === 1 ? true : undefined;
    }, { what: 'the publish job to wait for the rate-limit reset' });

    const answer = await health({ apiKey }, throttledId);
    expect(answer.status).toBe(200);
    const body = answer.body as { rateLimit: { until: string }; actions: { until: string }[] };
    expect(body).toMatchObject({
      status: 'rate_limited',
      rateLimit: { limited: true, postsWaiting: 1 },
      actions: [{ code: 'wait_rate_limit' }],
    });
    // The job is delayed to the reset as the worker read it (its clock, its rounding): within two seconds.
    const until = new Date(body.rateLimit.until);
    expect(Math.abs(until.getTime() - resetAt.getTime())).toBeLessThan(2_000);
    expect(body.actions[0]?.until).toBe(body.rateLimit.until);
    // Reading the health changed nothing: the job still waits for the reset.
    expect(await (await stack.publishQueue.getJob(publishJobId(postId)))?.getState()).toBe('delayed');

    const page = await browser.get('/channels');
    expect(page.status).toBe(200);
    const statusOf = (name: string) => new RegExp(`${name}[\\s\\S]*?<td><span title="[^"]*">([^<]+)</span></td>`)
      .exec(page.html)?.[1];
    expect(statusOf('throttled')).toBe(`Rate limited until ${until.toISOString().slice(11, 16)} UTC`);
    expect(statusOf('refusedlisted')).toBe('Reconnect needed');
    expect(statusOf('healthylisted')).toBe('Healthy');
  });
});
