import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import {
  startPinterestSimulator, type PinterestSimulator,
} from '../../../test/simulators/pinterest/pinterest-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { solidPng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import { createPinterestAdapter } from './adapter.ts';
import { pinterestConnect } from './connect.ts';

const board = '549755885175001';
const bytes = solidPng(4, [10, 120, 40]);
const image: PublishMedia = {
  kind: 'image', mimeType: 'image/png', size: bytes.length, fileName: 'green.png', alt: null,
  url: 'https://media.example/green.png', open: () => Promise.resolve(Readable.from([bytes])),
};

describe('Pinterest adapter: removing pins', () => {
  let sim: PinterestSimulator;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;

  beforeAll(async () => {
    sim = await startPinterestSimulator();
    sim.addUser({
      id: '549755885175', username: 'maker', profile_image: '', account_type: 'BUSINESS',
      boards: [{ id: board, name: 'Recipes', privacy: 'PUBLIC' }],
    });
    sim.authority.consentingUser = '549755885175';
    const { url } = sim;
    const app = {
      clientId: sim.clientId, clientSecret: sim.clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null,
    };
    const context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const { authorized } = await authorizeAndConnect(pinterestConnect, context);
    channel = { channelId: 'c1', accessToken: authorized.accounts[0]?.accessToken ?? '', instanceUrl: null };
    adapter = createPinterestAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, app);
  });
  afterAll(async () => { await sim.close(); });

  it('deletes the pin with DELETE /v5/pins/:id; a second removal finds it gone', async () => {
    const pin = await adapter.publish({
      channel, content: 'Pinned, then not', media: [image], settings: { title: 'Green' }, idempotencyKey: 'k1',
      checkpoint: memoryCheckpoint(),
    });
    expect(sim.pins.items.map((item) => item.id)).toContain(pin.releaseId);
    await adapter.remove?.(channel, { releaseId: pin.releaseId, settings: {} });
    expect(sim.pins.items.map((item) => item.id)).not.toContain(pin.releaseId);
    expect(sim.requestsTo('DELETE /v5/pins/:id')).toHaveLength(1);
    await expect(adapter.remove?.(channel, { releaseId: pin.releaseId, settings: {} })).resolves.toBeUndefined();
  });
});
