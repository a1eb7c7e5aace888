import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quotaExceeded } from '../../../test/simulators/google/youtube-answers.ts';
import { startYoutubeSimulator, type YoutubeSimulator } from '../../../test/simulators/google/youtube-simulator.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4 } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import { createYoutubeAdapter } from './adapter.ts';
import { youtubeConnect } from './connect.ts';

const ada = {
  id: 'UCadafilms00000000000001', title: 'Ada Films', customUrl: '@adafilms', thumbnail: 'https://yt3.ggpht.com/a.jpg',
};
const bea = {
  id: 'UCbeatalks00000000000002', title: 'Bea Talks', customUrl: '@beatalks', thumbnail: 'https://yt3.ggpht.com/b.jpg',
};

let sim: YoutubeSimulator;
let adapter: PlatformAdapter;
let adaChannel: ChannelCredentials;
let beaChannel: ChannelCredentials;

function video(): PublishMedia {
  const bytes = sampleMp4(40_000);
  return {
    kind: 'video', mimeType: 'video/mp4', size: bytes.length, fileName: 'clip.mp4', alt: null,
    url: 'http://127.0.0.1/uploads/clip.mp4', open: () => Promise.resolve(Readable.from([bytes])),
  };
}

async function connect(user: string): Promise<ChannelCredentials> {
  sim.authority.consentingUser = user;
  const app = {
    clientId: sim.clientId, clientSecret: sim.clientSecret, apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url,
    botToken: null,
  };
  const context = { app, timeoutMs: 5_000, userHosts: connectionPolicyFor(false) };
  const { tokens } = await authorizeAndConnect(youtubeConnect, context);
  return { channelId: `c-${user}`, accessToken: tokens.accessToken, instanceUrl: null };
}

async function upload(channel: ChannelCredentials, title: string): Promise<string> {
  const input = {
    channel, content: 'A description', media: [video()], settings: { title, privacyStatus: 'public' },
    idempotencyKey: title, checkpoint: memoryCheckpoint(),
  };
  return (await adapter.publish(input)).releaseId;
}

function removeVideo(channel: ChannelCredentials, releaseId: string): Promise<void> {
  if (adapter.remove === undefined) throw new Error('the YouTube adapter has no remove');
  return adapter.remove(channel, { releaseId, settings: {} });
}

const held = (id: string) => sim.store.videos.some((item) => item.id === id);

beforeAll(async () => {
  sim = await startYoutubeSimulator({
    ada: { channels: [ada], businessAccounts: [] },
    bea: { channels: [bea], businessAccounts: [] },
  });
  adaChannel = await connect('ada');
  beaChannel = await connect('bea');
  adapter = createYoutubeAdapter({ timeoutMs: 5_000, userHosts: connectionPolicyFor(false) }, { apiUrl: sim.url });
});
afterAll(async () => { await sim.close(); });

describe('youtube adapter: removing videos', () => {
  it('deletes the channel\'s video with videos.delete; a second removal finds it gone', async () => {
    const id = await upload(adaChannel, 'Soon deleted');
    await removeVideo(adaChannel, id);
    expect(held(id)).toBe(false);
    expect((await adapter.recentContent(adaChannel)).map((item) => item.id)).not.toContain(id);
    const deletes = sim.received.filter((request) => request.method === 'DELETE');
    expect(deletes.map((request) => `${request.path}?id=${request.query.get('id') ?? ''}`))
      .toEqual([`/youtube/v3/videos?id=${id}`]);
    // 404 videoNotFound: already gone, as wanted.
    await expect(removeVideo(adaChannel, id)).resolves.toBeUndefined();
  });

  it('classifies refusals as publishing does: another channel\'s video, a spent quota', async () => {
    const id = await upload(adaChannel, 'Ada keeps this');
    const forbidden = await platformFailure(removeVideo(beaChannel, id));
    expect(forbidden).toMatchObject({ kind: 'permanent', httpStatus: 403 });
    sim.store.failNext('videos.delete', quotaExceeded);
    const spent = await platformFailure(removeVideo(adaChannel, id));
    expect(spent.kind).toBe('retryable');
    expect(spent.retryAfterMs).toBeGreaterThan(0);
    expect(held(id)).toBe(true);
  });
});
