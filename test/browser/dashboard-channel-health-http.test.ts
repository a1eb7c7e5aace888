import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, newAccount } from './dashboard-client.ts';
import { setChannelSchedule } from '../../shared/domain/channels/channel-schedule.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

/** The channels page's health details: the facts GET /integrations/:id/health answers, in words. */
describe('dashboard channel health', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let user: DashboardClient;
  let organizationId = '';

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    user = new DashboardClient(stack.baseUrl);
    const account = newAccount('health');
    await user.signUp(account);
    const stored = await ctx.db.users.findOne({ email: account.email }).lean();
    organizationId = stored?.organizationIds[0]?.toString() ?? '';
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  async function addChannel(name: string, fields: Record<string, unknown> = {}): Promise<string> {
    const channel = await ctx.db.channels.create({
      organizationId: new Types.ObjectId(organizationId), provider: 'mastodon', name,
      instanceUrl: 'https://mastodon.example', tokenSealed: ctx.secrets.seal('token'), ...fields,
    });
    return channel._id.toString();
  }

  const section = (html: string, name: string): string =>
    html.split('<section class="channel-health"').find((one) => one.includes(`>${name}: `)) ?? '';

  it('says what to do for a channel whose credentials were refused, with its reconnect link', async () => {
    const id = await addChannel('Refused', { refreshNeeded: true });
    const page = await user.get('/channels');
    const refused = section(page.html, 'Refused');
    expect(refused).toContain('Refused: Reconnect needed');
    expect(refused).toContain('Reconnect the channel: the platform refused the channel&#39;s credentials.');
    expect(refused).toContain(`href="/channels/connect/mastodon?refresh=${id}"`);
    expect(refused).toContain('aria-label="Reconnect Refused to fix this"');
  });

  it('shows the token, the last result, the rate limit, and the time zone with the queue slots', async () => {
    const id = await addChannel('Healthy one', { tokenExpiresAt: new Date('2099-01-01T00:00:00Z') });
    await setChannelSchedule(ctx.db, organizationId, id, {
      timeZone: 'Europe/Berlin', postingSlots: [{ weekday: 1, time: '09:00' }, { weekday: 3, time: '17:30' }],
    });
    const post = await ctx.db.posts.create({
      organizationId: new Types.ObjectId(organizationId), channelId: new Types.ObjectId(id), content: 'Out', group: 'g',
      publishDate: new Date(), publishedAt: new Date(), state: 'PUBLISHED', position: 0, releaseId: '1',
      releaseURL: 'https://mastodon.example/@us/1',
    });
    const healthy = section((await user.get('/channels')).html, 'Healthy one');
    expect(healthy).toContain('Healthy one: Healthy');
    expect(healthy).toContain('Nothing to do: the channel can publish.');
    expect(healthy).toContain('expires <time datetime="2099-01-01T00:00:00.000Z">2099-01-01 00:00 UTC</time>');
    expect(healthy).toContain(`<a href="/posts/${post._id.toString()}">published</a>`);
    expect(healthy).toContain('not limited');
    expect(healthy).toContain('Europe/Berlin, 2 queue slots a week');
    expect(healthy).toContain(`href="/channels/${id}/schedule"`);
    expect(healthy).not.toContain('to fix this');
  });
});
