import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { startRealListmonk, type RealListmonk } from '../../../test/simulators/listmonk/real-listmonk.ts';
import { startFaultProxy, type FaultProxy } from '../../../test/support/fault-proxy.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PublishMedia } from '../kit/platform-adapter.ts';
import { createListmonkAdapter } from './adapter.ts';
import { listmonkConnect } from './connect.ts';
import { partTag } from './listmonk-content.ts';

/**
 * The adapter against a real listmonk (v1.1.0, test/simulators/listmonk/listmonk-build.ts) behind a
 * fault proxy: its answers as they really are before v4 (a media upload answered `true`, lists
 * without a status, templates without a type, campaigns without bounces), read by the same code
 * that reads v5's in adapter.test.ts.
 */
const adapter = createListmonkAdapter({ timeoutMs: 5_000, userHosts: connectionPolicyFor(true) });
let listmonk: RealListmonk;
let proxy: FaultProxy;
let channel: ChannelCredentials;

beforeAll(async () => {
  listmonk = await startRealListmonk();
  proxy = await startFaultProxy(listmonk.url);
  const values = { url: proxy.url, apiUser: listmonk.user, token: listmonk.password };
  const context = testConnectContext({ userHosts: connectionPolicyFor(true) });
  const account = await listmonkConnect.verify(values, context);
  channel = { channelId: 'real', accessToken: account.accessToken, instanceUrl: account.instanceUrl };
});
afterAll(async () => {
  await proxy.close();
  await listmonk.close();
});

function png(bytes: Buffer): PublishMedia {
  return {
    kind: 'image', mimeType: 'image/png', size: bytes.length, fileName: 'photo.png', alt: 'A photo',
    url: 'http://127.0.0.1/uploads/photo.png', open: () => Promise.resolve(Readable.from([bytes])),
  };
}

const stored = async (name: string): Promise<number> =>
  (await listmonk.sql('SELECT id FROM media WHERE filename = $1', [name])).rowCount ?? 0;

describe('listmonk adapter against a real listmonk before v4', () => {
  it('reads the lists, the templates and the account\'s counters', async () => {
    expect(await adapter.tools.lists?.(channel, {})).toEqual([
      { id: 1, name: 'Default list', type: 'private', optin: 'single', subscribers: 1, tags: ['test'] },
      { id: 2, name: 'Opt-in list', type: 'public', optin: 'double', subscribers: 1, tags: ['test'] },
    ]);
    expect(await adapter.tools.templates?.(channel, {})).toEqual([
      { id: 1, name: 'Default template', type: 'campaign', isDefault: true },
    ]);
    expect(await adapter.analytics?.account(channel)).toEqual([
      { label: 'Lists', value: 2 }, { label: 'List subscriptions', value: 2 },
    ]);
  });

  it('finds by its name an image whose upload answer (`true` before v4) was lost', async () => {
    const checkpoint = memoryCheckpoint();
    const bytes = samplePng();
    const name = `${partTag('real-media')}-1.png`;
    proxy.failNext('/api/media', { kind: 'lose-response' });
    const part = {
      channel, content: 'With a photo', media: [png(bytes)], settings: { lists: [1], subject: 'Real media' },
      idempotencyKey: 'real-media', checkpoint,
    };
    expect((await platformFailure(adapter.publish(part))).kind).toBe('retryable');
    expect(await stored(name)).toBe(1);

    const result = await adapter.publish(part);
    expect(await stored(name)).toBe(1);
    expect(checkpoint.values.image0Url).toBe(`${listmonk.url}/uploads/${name}`);
    expect(result.releaseURL).toBe(`${proxy.url}/admin/campaigns/${result.releaseId}`);
    const uploads = proxy.requests.filter((request) => request.method === 'POST' && request.path === '/api/media');
    expect(uploads.map((request) => request.fault)).toEqual(['lose-response']);
  });

  it('reads a started campaign\'s counters and lists it among the newest', async () => {
    const result = await adapter.publish({
      channel, content: 'Counted', media: [], settings: { lists: [1, 2], subject: 'Real counters' },
      idempotencyKey: 'real-counters', checkpoint: memoryCheckpoint(),
    });
    const counters = await adapter.analytics?.post(channel, result.releaseId);
    // Before v2 a campaign has no bounce count; to_send is counted when the runner picks it up.
    expect(counters?.map((counter) => counter.label)).toEqual(['Sent', 'To send', 'Views', 'Clicks']);
    expect((await adapter.recentContent(channel))[0]).toEqual({ id: result.releaseId, url: result.releaseURL });
    const status = await listmonk.sql('SELECT status FROM campaigns WHERE id = $1', [Number(result.releaseId)]);
    expect(status.rows).toEqual([{ status: 'running' }]);
  });

  it('passes listmonk\'s refusal of a sender address', async () => {
    const error = await platformFailure(adapter.publish({
      channel, content: 'x', media: [],
      settings: { lists: [1], subject: 'Bad sender', from_email: 'not an address' },
      idempotencyKey: 'real-sender', checkpoint: memoryCheckpoint(),
    }));
    expect(error).toMatchObject({
      kind: 'permanent', httpStatus: 400, message: 'listmonk: Invalid `from_email`.',
    });
  });
});
