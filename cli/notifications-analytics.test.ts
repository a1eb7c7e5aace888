import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../shared/domain/organizations/organizations.ts';
import { startStack, type RunningStack } from '../test/support/stack.ts';
import { createTestContext, type TestContext } from '../test/support/test-context.ts';
import { removeTemporaryFolders, runCli, stdoutJson, temporaryHome, type CliRun } from './test/run-cli.ts';

interface NotificationsPage {
  notifications: { id: string; content: string }[];
  total: number;
  page: number;
  limit: number;
  hasMore: boolean;
}

describe('sps notifications:list and analytics:* against the api', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;
  const home = temporaryHome();

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    const organization = await createOrganization(ctx.db, ctx.secrets, { name: 'Notified' });
    apiKey = organization.apiKey;
    const organizationId = new Types.ObjectId(organization.organizationId);
    const start = Date.UTC(2031, 0, 1);
    await ctx.db.notifications.insertMany(Array.from({ length: 101 }, (_, index) => ({
      organizationId, content: `Notice ${index}`, link: null, createdAt: new Date(start + index * 60_000),
    })));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    removeTemporaryFolders();
  });

  const sps = (args: string[], key = apiKey): Promise<CliRun> => runCli(args, { home, env: { SERVICE_API_KEY: key, SERVICE_API_URL: `${stack.baseUrl}/api` } });

  it('notifications:list prints page 0 by default, newest first, and --page the next one', async () => {
    const first = (stdoutJson(await sps(['notifications:list'])) as NotificationsPage);
    expect(first).toMatchObject({ total: 101, page: 0, limit: 100, hasMore: true });
    expect(first.notifications).toHaveLength(100);
    expect(first.notifications[0]?.content).toBe('Notice 100');
    const second = (stdoutJson(await sps(['notifications:list', '--page', '1'])) as NotificationsPage);
    expect(second).toMatchObject({ page: 1, hasMore: false, notifications: [{ content: 'Notice 0' }] });
  });

  it('notifications:list refuses a page that is not a whole number, and shows the server\'s refusal of a wrong key', async () => {
    const negative = await sps(['notifications:list', '--page', '-1']);
    expect(negative.code).toBe(1);
    expect(negative.stderr).toContain('expected a whole number, 0 or more');
    const refused = await sps(['notifications:list'], 'sps_wrong_key');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: .*\(invalid_credentials, HTTP 401\)$/m);
  });

  it('analytics:platform and analytics:post print the stored series; --days reaches further back', async () => {
    const organizationId = new Types.ObjectId((await ctx.db.organizations.findOne({ name: 'Notified' }).lean())?._id);
    const channel = await ctx.db.channels.create({
      organizationId, provider: 'mastodon', name: 'Counted', instanceUrl: 'https://mastodon.example',
      tokenSealed: ctx.secrets.seal('token'),
    });
    const post = await ctx.db.posts.create({
      organizationId, channelId: channel._id, group: 'g', position: 0, content: 'Counted post', state: 'PUBLISHED',
      publishDate: new Date(), publishedAt: new Date(), releaseId: '110', releaseURL: 'https://mastodon.example/@a/110',
    });
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const reading = (subject: 'channel' | 'post', subjectId: Types.ObjectId, daysAgo: number, value: number) => ({
      organizationId, channelId: channel._id, subject, subjectId, day: day(daysAgo),
      counters: [{ label: subject === 'channel' ? 'Followers' : 'Favourites', value }], fetchedAt: new Date(),
    });
    await ctx.db.analyticsDays.insertMany([
      reading('channel', channel._id, 20, 50), reading('channel', channel._id, 1, 100), reading('post', post._id, 0, 9),
    ]);

    const week = stdoutJson(await sps(['analytics:platform', channel._id.toString()]));
    expect(week).toEqual([{ label: 'Followers', data: [{ total: 100, date: day(1) }], percentageChange: 0 }]);
    const month = stdoutJson(await sps(['analytics:platform', channel._id.toString(), '--days', '30']));
    expect(month).toEqual([{
      label: 'Followers', data: [{ total: 50, date: day(20) }, { total: 100, date: day(1) }], percentageChange: 100,
    }]);
    const ofPost = stdoutJson(await sps(['analytics:post', post._id.toString(), '--days', '7']));
    expect(ofPost).toEqual([{ label: 'Favourites', data: [{ total: 9, date: day(0) }], percentageChange: 0 }]);
  });

  it('analytics:platform exits 1 with the server\'s message for another organization\'s channel', async () => {
    const run = await sps(['analytics:platform', '000000000000000000000001']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^Error: .*\(not_found, HTTP 404\)$/m);
  });

  it('analytics --days must be a whole number', async () => {
    const run = await sps(['analytics:post', 'p1', '--days', 'week']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('expected a whole number, 0 or more');
  });
});
