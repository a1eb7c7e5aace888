import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startYoutubeSimulator, type YoutubeSimulator } from '../../../test/simulators/google/youtube-simulator.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4 } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput, PublishMedia } from '../kit/platform-adapter.ts';
import { createYoutubeAdapter, videoUrl } from './adapter.ts';
import { youtubeConnect } from './connect.ts';
import { chunkUnit } from './resumable-upload.ts';

const channelId = 'UCadafilms00000000000001';
const thumbnail = 'https://yt3.ggpht.com/a.jpg';
const mp4 = sampleMp4(600_000);

let sim: YoutubeSimulator;
let adapter: PlatformAdapter;
let channel: ChannelCredentials;

function file(bytes: Buffer, mimeType: string, fileName: string): PublishMedia & { opened: () => number } {
  let opened = 0;
  return {
    kind: mimeType.startsWith('video/') ? 'video' : 'image',
    mimeType,
    size: bytes.length,
    fileName,
    alt: null,
    url: `http://127.0.0.1/uploads/${fileName}`,
    open: () => {
      opened += 1;
      return Promise.resolve(Readable.from([bytes.subarray(0, 100_000), bytes.subarray(100_000)]));
    },
    opened: () => opened,
  };
}

let parts = 0;
function part(title: string, checkpoint: MemoryCheckpoint = memoryCheckpoint()): PublishInput & {
  checkpoint: MemoryCheckpoint;
} {
  parts += 1;
  return {
    channel,
    content: `About ${title}`,
    media: [file(mp4, 'video/mp4', 'clip.mp4')],
    settings: { title, privacyStatus: 'unlisted' },
    idempotencyKey: `sps-post-${String(parts)}`,
    checkpoint,
  };
}

const videosTitled = (title: string) => sim.store.videos.filter((video) => video.snippet.title === title);
const requestsOf = (sessionUrl: string | undefined) => {
  const id = new URL(sessionUrl ?? 'http://none').searchParams.get('upload_id');
  return sim.store.sessionRequests.filter((request) => request.sessionId === id);
};

beforeAll(async () => {
  sim = await startYoutubeSimulator({
    ada: {
      channels: [{ id: channelId, title: 'Ada Films', customUrl: '@adafilms', thumbnail }],
      businessAccounts: [],
    },
  });
  sim.authority.consentingUser = 'ada';
  const app = {
    clientId: sim.clientId, clientSecret: sim.clientSecret, apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url,
    botToken: null,
  };
  const { tokens } = await authorizeAndConnect(youtubeConnect, {
    app, timeoutMs: 5_000, userHosts: connectionPolicyFor(false),
  });
  channel = { channelId: 'c-ada', accessToken: tokens.accessToken, instanceUrl: null };
  // Chunks of 256 KiB: the 600 kB file goes in three PUTs, the first two answered 308.
  adapter = createYoutubeAdapter(
    { timeoutMs: 5_000, userHosts: connectionPolicyFor(false) }, { apiUrl: sim.url }, { chunkBytes: chunkUnit },
  );
});
afterAll(async () => { await sim.close(); });
beforeEach(() => {
  sim.store.cutNextChunkAfter = null;
  sim.store.loseNextCompletion = false;
});

describe('YouTube resumable upload against the simulator', () => {
  it('checkpoints the session address before the first byte and sends the file in 256 KiB chunks', async () => {
    const input = part('Chunked');
    const result = await adapter.publish(input);

    const [video] = videosTitled('Chunked');
    expect(result).toEqual({ releaseId: video?.id, releaseURL: videoUrl(video?.id ?? '') });
    expect(video?.bytes.equals(mp4)).toBe(true);
    expect(input.checkpoint.saves[0]).toEqual({ uploadSession: expect.stringContaining(sim.uploadUrl) as unknown,
      uploadFile: `clip.mp4:${String(mp4.length)}:video/mp4` });
    expect(input.checkpoint.saves.at(-1)).toEqual({ videoId: video?.id });
    const sent = requestsOf(input.checkpoint.values.uploadSession);
    expect(sent.map((request) => [request.contentRange, request.outcome])).toEqual([
      [`bytes 0-${String(chunkUnit - 1)}/${String(mp4.length)}`, 'incomplete'],
      [`bytes ${String(chunkUnit)}-${String(2 * chunkUnit - 1)}/${String(mp4.length)}`, 'incomplete'],
      [`bytes ${String(2 * chunkUnit)}-${String(mp4.length - 1)}/${String(mp4.length)}`, 'complete'],
    ]);
  });

  it('resumes a cut upload from the byte the session lacks, sending only the rest', async () => {
    const input = part('Cut midway');
    sim.store.cutNextChunkAfter = 100_000;
    const failure = await platformFailure(adapter.publish(input));
    expect(failure.kind).toBe('retryable');
    expect(input.checkpoint.values.videoId).toBeUndefined();
    expect(videosTitled('Cut midway')).toHaveLength(0);

    const result = await adapter.publish(input);
    const made = videosTitled('Cut midway');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(made[0]?.id);
    expect(made[0]?.bytes.equals(mp4)).toBe(true);
    const sent = requestsOf(input.checkpoint.values.uploadSession);
    const size = String(mp4.length);
    const resumedAt = 100_000 + chunkUnit;
    expect(sent.map((request) => [request.contentRange, request.outcome, request.kept])).toEqual([
      [`bytes 0-${String(chunkUnit - 1)}/${size}`, 'cut', 100_000],
      [`bytes */${size}`, 'incomplete', 0],
      [`bytes 100000-${String(resumedAt - 1)}/${size}`, 'incomplete', chunkUnit],
      [`bytes ${String(resumedAt)}-${String(mp4.length - 1)}/${size}`, 'complete', mp4.length - resumedAt],
    ]);
    // Every byte reached YouTube once: after the cut, only what the session lacked was sent.
    expect(sent.slice(2).reduce((sum, request) => sum + request.bodyBytes, 0)).toBe(mp4.length - 100_000);
    expect(sent.reduce((sum, request) => sum + request.kept, 0)).toBe(mp4.length);
  });

  it('takes the video from the session when the last chunk\'s answer was lost, uploading nothing again', async () => {
    const input = part('Lost answer');
    sim.store.loseNextCompletion = true;
    const failure = await platformFailure(adapter.publish(input));
    expect(failure.kind).toBe('retryable');
    const before = requestsOf(input.checkpoint.values.uploadSession).length;

    const result = await adapter.publish(input);
    const made = videosTitled('Lost answer');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(made[0]?.id);
    const after = requestsOf(input.checkpoint.values.uploadSession).slice(before);
    expect(after.map((request) => [request.contentRange, request.outcome])).toEqual([
      [`bytes */${String(mp4.length)}`, 'complete'],
    ]);
  });

  it('opens a new session when the saved one expired before the upload finished', async () => {
    const input = part('Expired session');
    sim.store.cutNextChunkAfter = 10;
    await platformFailure(adapter.publish(input));
    const first = input.checkpoint.values.uploadSession;
    sim.store.expireSessions();

    const result = await adapter.publish(input);
    const made = videosTitled('Expired session');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(made[0]?.id);
    expect(made[0]?.bytes.equals(mp4)).toBe(true);
    expect(input.checkpoint.values.uploadSession).not.toBe(first);
    expect(requestsOf(first).map((request) => request.outcome)).toEqual(['cut', 'refused']);
  });

  it('sends nothing for a part whose video id is checkpointed', async () => {
    const input = part('Already up');
    const first = await adapter.publish(input);
    const received = sim.received.length + sim.store.sessionRequests.length;
    const media = file(mp4, 'video/mp4', 'clip.mp4');

    const again = await adapter.publish({ ...input, media: [media] });
    expect(again).toEqual(first);
    expect(sim.received.length + sim.store.sessionRequests.length).toBe(received);
    expect(media.opened()).toBe(0);
    expect(videosTitled('Already up')).toHaveLength(1);
  });

  it('does not resume a session opened for another file', async () => {
    const input = part('Other file');
    sim.store.cutNextChunkAfter = 10;
    await platformFailure(adapter.publish(input));
    const first = input.checkpoint.values.uploadSession;
    const other = sampleMp4(300_000);

    await adapter.publish({ ...input, media: [file(other, 'video/mp4', 'other.mp4')] });
    const [made] = videosTitled('Other file');
    expect(made?.bytes.equals(other)).toBe(true);
    expect(input.checkpoint.values.uploadSession).not.toBe(first);
    expect(requestsOf(first).map((request) => request.outcome)).toEqual(['cut']);
  });
});
