import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { startDevtoSimulator, type RunningDevtoSimulator } from '../simulators/devto/devto-simulator.ts';
import { api, connectMastodonThroughApi } from '../support/fixtures.ts';
import { runScript, startService, type ServiceProcess } from '../support/processes.ts';
import { waitFor } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

/**
 * The whole path as an operator runs it: the npm scripts create an organization and a
 * Mastodon channel, the api and the workers run as their own processes, and a post made
 * through the public API ends up on the (simulated) instance with a notification.
 */
describe('walking skeleton: org:create → connect → POST /posts → Mastodon → notification', () => {
  let ctx: TestContext;
  const simulator = new MastodonSimulator();
  let devto: RunningDevtoSimulator;
  let apiProcess: ServiceProcess;
  let workersProcess: ServiceProcess;
  let baseUrl: string;

  beforeAll(async () => {
    await simulator.start();
    devto = await startDevtoSimulator([
      {
        id: 7, username: 'acme', name: 'Acme Writers', profileImage: 'https://media.dev.to/acme.png',
        apiKeys: ['devto-key'],
      },
    ]);
    ctx = await createTestContext({ LOG_LEVEL: 'info', DEVTO_API_URL: devto.apiUrl });
    apiProcess = startService('api/main.ts', ctx.env);
    workersProcess = startService('workers/main.ts', ctx.env);
    const [, port] = await apiProcess.waitForOutput(/api listening on http:\/\/127\.0\.0\.1:(\d+)/);
    baseUrl = `http://127.0.0.1:${port ?? ''}`;
    await workersProcess.waitForOutput(/workers running: publish/);
  });
  afterAll(async () => {
    await apiProcess.stop('SIGKILL');
    await workersProcess.stop('SIGKILL');
    await ctx.cleanup();
    await simulator.stop();
    await devto.close();
  });

  let organizationId = '';
  let apiKey = '';
  let channelId = '';

  it('org:create prints the organization id and a fresh API key as one JSON line', async () => {
    const result = await runScript('scripts/org-create.ts', ['--name', 'Acme Inc'], ctx.env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    ({ organizationId, apiKey } = JSON.parse(lines[0] ?? '') as { organizationId: string; apiKey: string });
    expect(organizationId).toMatch(/^[0-9a-f]{24}$/);
    expect(apiKey).toMatch(/^sps_[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(await ctx.db.organizations.findById(organizationId).lean())).not.toContain(apiKey);
  });

  it('connects a Mastodon account through GET /social/mastodon and the instance\'s consent, token sealed', async () => {
    channelId = await connectMastodonThroughApi(baseUrl, apiKey, simulator, 'acme');
    const stored = await ctx.db.channels.findById(channelId).lean();
    expect(stored).toMatchObject({ provider: 'mastodon', instanceUrl: simulator.origin, name: 'acme' });
    expect(stored?.organizationId.toString()).toBe(organizationId);
    const token = ctx.secrets.open(stored?.tokenSealed ?? '');
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  // Five script processes, each starting Node and loading the domain: 4-5 s apiece while other files run.
  const scriptsTimeout = { timeout: 90_000 };
  const channelAdd = 'channel:add connects a credentials platform the platform accepts, and says why it refuses';
  it(channelAdd, scriptsTimeout, async () => {
    const args = ['--org', organizationId, '--provider', 'devto'];
    const added = await runScript('scripts/channel-add.ts', [...args, '--field', 'apiKey=devto-key'], ctx.env);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const { id } = JSON.parse(added.stdout) as { id: string };
    const stored = await ctx.db.channels.findById(id).lean();
    expect(stored).toMatchObject({ provider: 'devto', name: 'Acme Writers', accountId: '7' });

    const wrongKey = await runScript('scripts/channel-add.ts', [...args, '--field', 'apiKey=stolen'], ctx.env);
    expect([wrongKey.code, wrongKey.stderr]).toEqual([1, expect.stringContaining('unauthorized')]);
    const addScript = (provider: string) =>
      runScript('scripts/channel-add.ts', ['--org', organizationId, '--provider', provider], ctx.env);
    const oauth = await addScript('mastodon');
    expect([oauth.code, oauth.stderr]).toEqual([1, expect.stringContaining('GET /api/public/v1/social/mastodon')]);
    const unknownProvider = await addScript('myspace');
    expect([unknownProvider.code, unknownProvider.stderr]).toEqual([1, expect.stringContaining('"myspace"')]);
    expect(await ctx.db.channels.countDocuments({ provider: 'devto' })).toBe(1);
    const missingName = await runScript('scripts/org-create.ts', [], ctx.env);
    expect(missingName.code).toBe(1);
    expect(missingName.stderr).toMatch(/usage: npm run org:create -- --name/);
  });

  it('publishes a `now` post on Mastodon and reports it in GET /notifications', async () => {
    const created = await api(baseUrl, apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: channelId }, value: [{ content: 'Hello from SPS' }, { content: 'and a reply' }] }] },
    });
    expect(created.status).toBe(201);

    const reply = await waitFor(() => simulator.statuses.find((status) => status.text === 'and a reply'), { what: 'the thread on the simulator' });
    const root = simulator.statuses.find((status) => status.text === 'Hello from SPS');
    expect(reply.in_reply_to_id).toBe(root?.id);
    const request = simulator.statusesCreatedRequests().find((candidate) => (candidate.body as { status: string }).status === 'Hello from SPS');
    const token = ctx.secrets.open((await ctx.db.channels.findById(channelId).lean())?.tokenSealed ?? '');
    expect(request?.headers.authorization).toBe(`Bearer ${token}`);

    const notifications = await waitFor(async () => {
      const page = (await api(baseUrl, apiKey, '/api/public/v1/notifications')).body as { notifications: { content: string; link: string | null }[]; total: number };
      // Wait for the listed row, not the count: the page's count and rows are two reads.
      return page.notifications.length > 0 ? page : undefined;
    }, { what: 'the success notification' });
    expect(notifications.notifications[0]).toMatchObject({ content: `Your post was published on Mastodon at ${root?.url ?? ''}`, link: root?.url });
  });

  it('lets a running publish finish on SIGTERM before the workers exit', async () => {
    simulator.failNext({ delayMs: 1_500 });
    const created = await api(baseUrl, apiKey, '/api/public/v1/posts', { method: 'POST', body: { type: 'now', posts: [{ integration: { id: channelId }, value: [{ content: 'Mid-flight' }] }] } });
    const postId = (created.body as { postId: string }[])[0]?.postId ?? '';
    await waitFor(() => (simulator.statusesCreatedRequests().some((candidate) => (candidate.body as { status: string }).status === 'Mid-flight') ? true : undefined), { what: 'the publish call to start' });

    const [workersExit, apiExit] = await Promise.all([workersProcess.stop('SIGTERM'), apiProcess.stop('SIGTERM')]);
    expect(workersExit).toBe(0);
    expect(apiExit).toBe(0);
    expect((await ctx.db.posts.findById(postId).lean())?.state).toBe('PUBLISHED');
    expect(workersProcess.output()).toMatch(/"event":"service.stopped"/);
  });
});
