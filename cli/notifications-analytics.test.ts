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

  it.each([
    [['analytics:platform', '000000000000000000000001'], 'Channel analytics'],
    [['analytics:platform', '000000000000000000000001', '--days', '30'], 'Channel analytics'],
    [['analytics:post', '000000000000000000000002', '--days', '7'], 'Post analytics'],
  ])('%j exits 1 with the server\'s 501 message', async (args, feature) => {
    const run = await sps(args);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`Error: ${feature} is not available on this server yet (not_implemented, HTTP 501)`);
  });

  it('analytics --days must be a whole number', async () => {
    const run = await sps(['analytics:post', 'p1', '--days', 'week']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('expected a whole number, 0 or more');
  });
});
