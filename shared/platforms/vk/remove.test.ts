import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { startVkSimulator, type RunningVkSimulator } from '../../../test/simulators/vk/vk-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createVkAdapter } from './adapter.ts';
import { vkConnect } from './connect.ts';
import { VkPacer } from './vk-pacer.ts';

const userId = 210700286;

describe('VK adapter: removing wall posts and comments', () => {
  let vk: RunningVkSimulator;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;

  beforeAll(async () => {
    vk = await startVkSimulator({
      'user-1': { id: userId, firstName: 'Ada', lastName: 'Lovelace', screenName: 'ada', photo200: '', followers: 1 },
    });
    vk.addGroup({ id: 77, name: 'Someone Else\'s', screenName: 'else', managers: [1], members: 5 });
    const { url } = vk;
    const app = { clientId: vk.clientId, clientSecret: null, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null };
    const context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const { tokens } = await authorizeAndConnect(vkConnect, context, 'https://sps.example/channels/callback/vk');
    channel = { channelId: 'c1', accessToken: tokens.accessToken, instanceUrl: null };
    vk.rateWindowMs = 150;
    adapter = createVkAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, app, new VkPacer(3, 200));
  });
  afterAll(async () => { await vk.close(); });

  const part = (content: string) =>
    ({ channel, content, media: [], settings: {}, idempotencyKey: content, checkpoint: memoryCheckpoint() });

  it('deletes the comment, then the post; a second removal finds it gone', async () => {
    const post = await adapter.publish(part('VK, soon gone'));
    const comment = await adapter.comment({ ...part('A comment'), parentReleaseId: post.releaseId });
    await adapter.remove?.(channel, { releaseId: comment.releaseId, settings: {} });
    await adapter.remove?.(channel, { releaseId: post.releaseId, settings: {} });
    expect(vk.records.posts.some((item) => item.text === 'VK, soon gone')).toBe(false);
    expect(vk.records.comments.some((item) => item.text === 'A comment')).toBe(false);
    await expect(adapter.remove?.(channel, { releaseId: post.releaseId, settings: {} })).resolves.toBeUndefined();
  });

  it('refuses a post on a wall the user may not use', async () => {
    const refusal = await adapter.remove?.(channel, { releaseId: '-77_5', settings: {} })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PlatformError);
  });
});
