import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectedLocation, startGmbWithOwners } from '../../../test/simulators/google/gmb-test-accounts.ts';
import type { GmbSimulator } from '../../../test/simulators/google/gmb-simulator.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import { createGmbAdapter } from './adapter.ts';

/** Noon UTC on 2030-05-29: the 28 days read are 2030-05-01 to 2030-05-28. */
const now = Date.UTC(2030, 4, 29, 12);

let sim: GmbSimulator;
let adapter: PlatformAdapter;
let cafe: ChannelCredentials;

beforeAll(async () => {
  sim = await startGmbWithOwners();
  const options = { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
  adapter = createGmbAdapter(options, { apiUrl: sim.url }, () => now);
});
afterAll(async () => { await sim.close(); });
beforeEach(async () => {
  cafe = await connectedLocation(sim, 'locations/a2');
});

describe('Google Business Profile tools', () => {
  it('lists every location the Google account manages, the channel\'s own marked', async () => {
    const listed = await adapter.tools.locations?.(cafe, {});

    const ada = { account: 'accounts/100', accountName: 'Ada' };
    expect(listed).toEqual([
      { ...ada, location: 'locations/a1', title: 'Ada Bakery', connected: false },
      { ...ada, location: 'locations/a2', title: 'Ada Cafe', connected: true },
      { account: 'accounts/200', accountName: 'Bea group', location: 'locations/b1', title: 'Bea Books',
        connected: false },
    ]);
  });

  it('refuses input the locations tool does not take', async () => {
    const error = await platformFailure(adapter.tools.locations?.(cafe, { account: 'accounts/100' })
      ?? Promise.resolve());

    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/^the locations tool takes no input: /);
  });
});

describe('Google Business Profile analytics', () => {
  it('sums the location\'s daily Performance API series over the 28 days up to yesterday', async () => {
    const location = 'locations/a2';
    sim.store.setMetric(location, 'BUSINESS_IMPRESSIONS_MOBILE_SEARCH', '2030-05-01', 40);
    sim.store.setMetric(location, 'BUSINESS_IMPRESSIONS_DESKTOP_MAPS', '2030-05-28', 2);
    sim.store.setMetric(location, 'BUSINESS_IMPRESSIONS_MOBILE_MAPS', '2030-04-30', 1_000);
    sim.store.setMetric(location, 'BUSINESS_IMPRESSIONS_DESKTOP_SEARCH', '2030-05-29', 1_000);
    sim.store.setMetric(location, 'WEBSITE_CLICKS', '2030-05-10', 7);
    sim.store.setMetric(location, 'WEBSITE_CLICKS', '2030-05-11', 5);
    sim.store.setMetric(location, 'CALL_CLICKS', '2030-05-12', 3);
    sim.store.setMetric('locations/a1', 'CALL_CLICKS', '2030-05-12', 100);

    const counters = await adapter.analytics?.account(cafe);

    expect(counters).toEqual([
      { label: 'Profile views (28 days)', value: 42 },
      { label: 'Website clicks (28 days)', value: 12 },
      { label: 'Calls (28 days)', value: 3 },
      { label: 'Direction requests (28 days)', value: 0 },
    ]);
    const path = '/v1/locations/a2:fetchMultiDailyMetricsTimeSeries';
    const [read] = sim.received.filter((request) => request.path === path);
    expect(read?.query.get('dailyRange.startDate.month')).toBe('5');
    expect(read?.query.get('dailyRange.startDate.day')).toBe('1');
    expect(read?.query.get('dailyRange.endDate.day')).toBe('28');
  });

  it('reads no post counters: Google deprecated post insights', async () => {
    expect(await adapter.analytics?.post(cafe, 'accounts/100/locations/a2/localPosts/1')).toEqual([]);
  });
});

describe('Google Business Profile recent content and comments', () => {
  it('lists the location\'s latest posts, newest first, with their links', async () => {
    const input = (content: string) => ({
      channel: cafe, content, media: [], settings: { topicType: 'STANDARD' }, idempotencyKey: content,
      checkpoint: memoryCheckpoint(),
    });
    const first = await adapter.publish(input('Older'));
    const second = await adapter.publish(input('Newer'));

    const recent = await adapter.recentContent(cafe);
    expect(recent.slice(0, 2)).toEqual([
      { id: second.releaseId, url: second.releaseURL }, { id: first.releaseId, url: first.releaseURL },
    ]);
    expect(recent.every((item) => item.id.startsWith('accounts/100/locations/a2/localPosts/'))).toBe(true);
  });

  it('refuses a comment: local posts have none', async () => {
    const error = await platformFailure(adapter.comment({
      channel: cafe, content: 'Reply', media: [], settings: {}, idempotencyKey: 'c', checkpoint: memoryCheckpoint(),
      parentReleaseId: 'accounts/100/locations/a2/localPosts/1',
    }));

    expect(error.kind).toBe('permanent');
  });
});
