import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startHashnodeSimulator, type RunningHashnodeSimulator,
} from '../../../test/simulators/hashnode/hashnode-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials } from '../kit/platform-adapter.ts';
import { createHashnodeAdapter } from './adapter.ts';

const adaId = '65a1f0c2e4b0a1b2c3d4e5f6';
const blog = '64a1b2c3d4e5f60718293a4b';
const channel: ChannelCredentials = { channelId: 'c1', accessToken: 'ada-token', instanceUrl: null };

let hashnode: RunningHashnodeSimulator;
let adapter: ReturnType<typeof createHashnodeAdapter>;

beforeAll(async () => {
  hashnode = await startHashnodeSimulator([{
    id: adaId, username: 'ada', name: 'Ada Lovelace', profilePicture: null, email: 'ada@example.com',
    tokens: ['ada-token'], followersCount: 42,
  }], {
    publications: [
      { id: blog, title: 'Ada writes', url: 'https://ada.hashnode.dev', pro: true, members: { [adaId]: 'OWNER' } },
    ],
  });
  adapter = createHashnodeAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(true) }, { apiUrl: hashnode.url });
});
afterAll(async () => { await hashnode.close(); });

describe('Hashnode: removing posts', () => {
  it('deletes the post with removePost; a second removal finds it gone', async () => {
    const post = await adapter.publish({
      channel, content: 'Soon removed', media: [],
      settings: { title: 'Removed', publicationId: blog, tags: [{ slug: 'javascript' }] },
      idempotencyKey: 'k1', checkpoint: memoryCheckpoint(),
    });
    await adapter.remove?.(channel, { releaseId: post.releaseId, settings: {} });
    expect(hashnode.world.posts.some((item) => item.id === post.releaseId)).toBe(false);
    expect(hashnode.requestsFor('removePost')).toHaveLength(1);
    await expect(adapter.remove?.(channel, { releaseId: post.releaseId, settings: {} })).resolves.toBeUndefined();
  });
});
