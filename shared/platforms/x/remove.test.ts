import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { startXSimulator, type XSimulator } from '../../../test/simulators/x/x-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createXAdapter } from './adapter.ts';
import { xConnect } from './connect.ts';

let sim: XSimulator;
let adapter: PlatformAdapter;

beforeAll(async () => {
  sim = await startXSimulator();
  sim.addUser({ id: '2244994945', name: 'Alice', username: 'alice', profile_image_url: '' });
  sim.addUser({ id: '783214', name: 'Bob', username: 'bob', profile_image_url: '' });
  adapter = createXAdapter({ timeoutMs: 5_000, userHosts: connectionPolicyFor(true) }, { apiUrl: sim.url });
});

afterAll(async () => {
  await sim.close();
});

async function connectAs(userId: string): Promise<ChannelCredentials> {
  sim.authority.consentingUser = userId;
  const context = {
    app: {
      clientId: sim.clientId, clientSecret: sim.clientSecret, apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url,
      botToken: null,
    },
    timeoutMs: 5_000,
    userHosts: connectionPolicyFor(true),
  };
  const { tokens } = await authorizeAndConnect(xConnect, context);
  return { channelId: `c-${userId}`, accessToken: tokens.accessToken, instanceUrl: null };
}

async function post(channel: ChannelCredentials, content: string): Promise<string> {
  const input = { channel, content, media: [], settings: {}, idempotencyKey: content, checkpoint: memoryCheckpoint() };
  return (await adapter.publish(input)).releaseId;
}

describe('removing X posts against the simulator', () => {
  it('deletes the user\'s post with DELETE /2/tweets/:id; a second removal finds it gone', async () => {
    const channel = await connectAs('2244994945');
    const releaseId = await post(channel, 'Soon deleted from X');
    await adapter.remove?.(channel, { releaseId, settings: {} });
    expect(sim.posts.items.some((item) => item.id === releaseId)).toBe(false);
    expect(sim.requestsTo('DELETE /2/tweets/:id')).toHaveLength(1);
    await expect(adapter.remove?.(channel, { releaseId, settings: {} })).resolves.toBeUndefined();
  });

  it('fails, without deleting, on another user\'s post', async () => {
    const bobs = await post(await connectAs('783214'), 'Bob keeps this');
    const alice = await connectAs('2244994945');
    const refusal = await adapter.remove?.(alice, { releaseId: bobs, settings: {} }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PlatformError);
    expect(sim.posts.items.some((item) => item.id === bobs)).toBe(true);
  });
});
