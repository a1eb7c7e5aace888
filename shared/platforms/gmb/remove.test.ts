import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceExhausted } from '../../../test/simulators/google/gmb-answers.ts';
import type { GmbSimulator } from '../../../test/simulators/google/gmb-simulator.ts';
import { connectedLocation, startGmbWithOwners } from '../../../test/simulators/google/gmb-test-accounts.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import { createGmbAdapter } from './adapter.ts';

let sim: GmbSimulator;
let adapter: PlatformAdapter;
let bakery: ChannelCredentials;

async function post(content: string): Promise<string> {
  const input = {
    channel: bakery, content, media: [], settings: { topicType: 'STANDARD' }, idempotencyKey: content,
    checkpoint: memoryCheckpoint(),
  };
  return (await adapter.publish(input)).releaseId;
}

function removePost(releaseId: string): Promise<void> {
  if (adapter.remove === undefined) throw new Error('the Business Profile adapter has no remove');
  return adapter.remove(bakery, { releaseId, settings: {} });
}

const held = (name: string) => sim.store.posts.some((item) => item.name === name);

beforeAll(async () => {
  sim = await startGmbWithOwners();
  adapter = createGmbAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, { apiUrl: sim.url });
  bakery = await connectedLocation(sim, 'locations/a1');
});
afterAll(async () => { await sim.close(); });

describe('Google Business Profile adapter: removing local posts', () => {
  it('deletes the post by its name with DELETE /v4/{name}; a second removal finds it gone', async () => {
    const name = await post('Closed on Monday');
    expect(name).toMatch(/^accounts\/100\/locations\/a1\/localPosts\/\d+$/);
    await removePost(name);
    expect(held(name)).toBe(false);
    expect((await adapter.recentContent(bakery)).map((item) => item.id)).not.toContain(name);
    const deletes = sim.received.filter((request) => request.method === 'DELETE');
    expect(deletes.map((request) => request.path)).toEqual([`/v4/${name}`]);
    // NOT_FOUND (404): already gone, as wanted.
    await expect(removePost(name)).resolves.toBeUndefined();
  });

  it('classifies refusals as publishing does: a quota, a location no longer managed', async () => {
    const name = await post('Staying a while');
    sim.store.failNext('localPosts.delete', resourceExhausted('300'));
    expect((await platformFailure(removePost(name))).kind).toBe('retryable');

    const owner = sim.users.get('owner')?.businessAccounts[0];
    const locations = owner?.locations.splice(0) ?? [];
    try {
      expect((await platformFailure(removePost(name))).kind).toBe('disconnected');
    } finally {
      owner?.locations.push(...locations);
    }
    expect(held(name)).toBe(true);
  });

  it('refuses a release id that is no local post\'s name, without calling Google', async () => {
    const before = sim.received.length;
    expect((await platformFailure(removePost('accounts/100/locations/a1'))).kind).toBe('permanent');
    expect(sim.received).toHaveLength(before);
  });
});
