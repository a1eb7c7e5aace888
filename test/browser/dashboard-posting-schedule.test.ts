import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { DashboardClient, newAccount } from './dashboard-client.ts';

const noSlots = Object.fromEntries([1, 2, 3, 4, 5, 6, 7].map((weekday) => [`slots-${weekday}`, '']));

/** The channel's posting schedule form, spoken to over HTTP as a browser would (workers off). */
describe('dashboard: a channel\'s time zone and weekly posting slots', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let client: DashboardClient;
  let channelId = '';

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    client = new DashboardClient(stack.baseUrl);
    const owner = newAccount('schedule');
    expect((await client.signUp(owner)).status).toBe(302);
    const user = await ctx.db.users.findOne({ email: owner.email }).lean();
    const organizationId = user?.organizationIds[0]?.toString() ?? '';
    ({ id: channelId } = await addTokenChannel(ctx.db, ctx.secrets, { allowPrivateNetwork: true }, {
      organizationId, provider: 'mastodon', name: 'Our Mastodon', instanceUrl: 'http://127.0.0.1:1234', token: 'token',
    }));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  it('links the form from the channel list and shows the schedule in force', async () => {
    const list = await client.get('/channels');
    expect(list.html).toContain(`href="/channels/${channelId}/schedule"`);
    const page = await client.get(`/channels/${channelId}/schedule`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('value="UTC"');
    expect(page.html).toContain('value="09:20, 14:10, 19:00"');
    expect(page.html).toContain('Next free slot:');
  });

  it('saves a zone and slots, read back by the api\'s schedule', async () => {
    await client.get(`/channels/${channelId}/schedule`);
    const saved = await client.post(`/channels/${channelId}/schedule`, {
      ...noSlots, timeZone: 'Europe/Berlin', 'slots-1': '9:00, 17:30', 'slots-5': '12:15',
    });
    expect(saved.status).toBe(302);
    expect(saved.location).toBe(`/channels/${channelId}/schedule?saved=1`);
    const channel = await ctx.db.channels.findById(channelId).lean();
    expect(channel?.timeZone).toBe('Europe/Berlin');
    expect(channel?.postingSlots).toEqual([
      { weekday: 1, time: '09:00' }, { weekday: 1, time: '17:30' }, { weekday: 5, time: '12:15' },
    ]);
    const page = await client.get(`/channels/${channelId}/schedule?saved=1`);
    expect(page.html).toContain('The schedule was saved.');
    expect(page.html).toContain('value="09:00, 17:30"');
  });

  it('shows a refused form again with the problem and what was typed, storing nothing', async () => {
    await client.get(`/channels/${channelId}/schedule`);
    const badTime = await client.post(`/channels/${channelId}/schedule`, {
      ...noSlots, timeZone: 'Europe/Berlin', 'slots-3': '25:00',
    });
    expect(badTime.status).toBe(400);
    expect(badTime.html).toContain('Wednesday: &quot;25:00&quot; is not a time of day as HH:MM');
    expect(badTime.html).toContain('value="25:00"');

    const badZone = await client.post(`/channels/${channelId}/schedule`, { ...noSlots, timeZone: 'Mars/Base' });
    expect(badZone.status).toBe(422);
    expect(badZone.html).toContain('is not a time zone of the IANA database');
    expect((await ctx.db.channels.findById(channelId).lean())?.timeZone).toBe('Europe/Berlin');
  });

  it('answers a page, not JSON, for a channel that is not the organization\'s', async () => {
    const page = await client.get('/channels/0123456789abcdef01234567/schedule');
    expect(page.status).toBe(404);
  });
});
