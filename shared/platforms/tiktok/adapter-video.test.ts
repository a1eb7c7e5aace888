import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import {
  connectedChannel, startTikTokWithCreators,
} from '../../../test/simulators/tiktok/tiktok-test-accounts.ts';
import type { RunningTikTokSimulator } from '../../../test/simulators/tiktok/tiktok-simulator.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4 } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput, PublishMedia } from '../kit/platform-adapter.ts';
import { createTikTokAdapter } from './adapter.ts';

const mb = 1024 * 1024;
const initPath = 'POST /v2/post/publish/video/init/';
// Fast, yet within TikTok's 30 status reads a minute per token.
const polling = { firstWaitMs: 20, maxIntervalMs: 200, maxWaitMs: 800, publicIdWaitMs: 300 };

let sim: RunningTikTokSimulator;
let adapter: PlatformAdapter;
let ada: ChannelCredentials;

function video(bytes: Buffer, durationSeconds: number | null = 12): PublishMedia {
  return {
    kind: 'video', mimeType: 'video/mp4', size: bytes.length, fileName: 'clip.mp4', alt: null, durationSeconds,
    url: 'https://media.example/clip.mp4', open: () => Promise.resolve(Readable.from([bytes])),
  };
}

type TestPart = PublishInput & { checkpoint: MemoryCheckpoint };

function part(
  content: string,
  media: PublishMedia[],
  settings: Record<string, unknown> = {},
  channel = ada,
): TestPart {
  return {
    channel, content, media, settings: { privacy_level: 'PUBLIC_TO_EVERYONE', ...settings },
    idempotencyKey: `k-${content}`, checkpoint: memoryCheckpoint(),
  };
}

const postsWith = (title: string) => sim.publishing.posts().filter((post) => post.title === title);
const initsWith = (title: string) => sim.requestsTo(initPath).filter((request) => request.text.includes(title));

beforeAll(async () => {
  sim = await startTikTokWithCreators();
  adapter = createTikTokAdapter(
    { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) },
    { apiUrl: sim.url },
    { chunkBytes: 5 * mb, polling },
  );
});
afterAll(async () => { await sim.close(); });
beforeEach(async () => {
  sim.publishing.processingMs = 0;
  sim.publishing.moderationMs = 0;
  ada = await connectedChannel(sim, 'ada');
});

describe('TikTok video posts', () => {
  it('reads creator_info, inits a direct post, PUTs the file and answers the public post id and URL', async () => {
    const bytes = sampleMp4(300_000);
    const result = await adapter.publish(part('A small video #sps', [video(bytes)], { disable_duet: true }));

    const [post] = postsWith('A small video #sps');
    expect(post?.video?.equals(bytes)).toBe(true);
    const releaseURL = `https://www.tiktok.com/@ada.films/video/${post?.id ?? ''}`;
    expect(result).toEqual({ releaseId: post?.id, releaseURL });
    // An int64 beyond 2^53: read as digits, not rounded through a double.
    expect(BigInt(result.releaseId) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(post?.postInfo).toEqual({
      title: 'A small video #sps', privacy_level: 'PUBLIC_TO_EVERYONE',
      disable_comment: false, disable_duet: true, disable_stitch: false,
    });
    const [init] = initsWith('A small video #sps');
    expect(JSON.parse(init?.text ?? '{}')).toMatchObject({
      source_info: { source: 'FILE_UPLOAD', video_size: 300_000, chunk_size: 300_000, total_chunk_count: 1 },
    });
    const [put] = sim.requestsTo('PUT /video/').slice(-1);
    expect(put?.headers['content-range']).toBe('bytes 0-299999/300000');
    expect(put?.headers['content-type']).toBe('video/mp4');
    expect(put?.headers.authorization).toBeUndefined();
  });

  it('cuts a larger file into chunks, the last one carrying the remainder', async () => {
    const bytes = sampleMp4(11 * mb + 123);
    const puts = sim.requestsTo('PUT /video/').length;
    await adapter.publish(part('Chunked video', [video(bytes)]));

    expect(postsWith('Chunked video')[0]?.video?.equals(bytes)).toBe(true);
    const ranges = sim.requestsTo('PUT /video/').slice(puts).map((request) => request.headers['content-range']);
    expect(ranges).toEqual([`bytes 0-${String(5 * mb - 1)}/${String(bytes.length)}`,
      `bytes ${String(5 * mb)}-${String(bytes.length - 1)}/${String(bytes.length)}`]);
  });

  it('saves the publish_id before the first byte is sent', async () => {
    const input = part('Checkpoint first', [video(sampleMp4(50_000))]);
    await adapter.publish(input);

    const [post] = postsWith('Checkpoint first');
    expect(input.checkpoint.saves[0]).toEqual({
      publishId: post?.publishId, publishMedia: 'video', publishMode: 'DIRECT_POST',
      privacyLevel: 'PUBLIC_TO_EVERYONE', username: 'ada.films',
    });
    const put = sim.requestsTo('PUT /video/').at(-1);
    const uploadId = sim.publishing.publishes.get(post?.publishId ?? '')?.upload?.uploadId;
    expect(put?.query.get('upload_id')).toBe(uploadId);
  });

  it('answers the publish_id and the profile when the post never gets a public id', async () => {
    const clip = video(sampleMp4(40_000));
    const selfOnly = await adapter.publish(part('Only me', [clip], { privacy_level: 'SELF_ONLY' }));
    const [mine] = postsWith('Only me');
    expect(selfOnly).toEqual({ releaseId: mine?.publishId, releaseURL: 'https://www.tiktok.com/@ada.films' });

    // Moderation longer than the wait: the post is made, its id not exposed yet.
    sim.publishing.moderationMs = 5_000;
    const slow = await adapter.publish(part('Long moderation', [video(sampleMp4(40_000))]));
    expect(slow.releaseId).toBe(postsWith('Long moderation')[0]?.publishId);
  });

  it('waits through processing and a short moderation for the post id', async () => {
    sim.publishing.processingMs = 60;
    sim.publishing.moderationMs = 60;
    const result = await adapter.publish(part('Processed', [video(sampleMp4(40_000))]));
    expect(result.releaseId).toBe(postsWith('Processed')[0]?.id);
  });

  it('sends an inbox upload with source_info only, for the creator to finish in the app', async () => {
    const inbox = sim.requestsTo('POST /v2/post/publish/inbox/video/init/').length;
    const clip = video(sampleMp4(40_000));
    const result = await adapter.publish(part('For the inbox', [clip], { post_mode: 'MEDIA_UPLOAD' }));

    const sent = sim.requestsTo('POST /v2/post/publish/inbox/video/init/').slice(inbox);
    expect(sent).toHaveLength(1);
    expect(Object.keys(JSON.parse(sent[0]?.text ?? '{}') as object)).toEqual(['source_info']);
    const shared = sim.publishing.inbox().at(-1);
    expect(result).toEqual({ releaseId: shared?.publishId, releaseURL: 'https://www.tiktok.com/@ada.films' });
    expect(Buffer.concat(shared?.upload?.chunks ?? []).length).toBe(40_000);
  });
});

describe('TikTok video posts, exactly once', () => {
  it('polls the stored publish_id on a retry instead of posting again', async () => {
    const input = part('Polled again', [video(sampleMp4(40_000))]);
    sim.failNext('POST /v2/post/publish/status/fetch/', { lose: true });
    expect((await platformFailure(adapter.publish(input))).kind).toBe('retryable');
    const inits = initsWith('Polled again').length;

    const result = await adapter.publish(input);
    expect(initsWith('Polled again')).toHaveLength(inits);
    expect(postsWith('Polled again')).toHaveLength(1);
    expect(result.releaseId).toBe(postsWith('Polled again')[0]?.id);
  });

  it('inits again after a lost init answer: the first publish never gets its bytes', async () => {
    const input = part('Lost init', [video(sampleMp4(40_000))]);
    sim.failNext(initPath, { lose: true });
    expect((await platformFailure(adapter.publish(input))).kind).toBe('retryable');
    expect(input.checkpoint.values.publishId).toBeUndefined();

    await adapter.publish(input);
    expect(initsWith('Lost init')).toHaveLength(2);
    expect(postsWith('Lost init')).toHaveLength(1);
  });

  it('starts a new publish when a chunk was lost halfway, and carries on when the last one was', async () => {
    const halfway = part('Lost first chunk', [video(sampleMp4(11 * mb))]);
    sim.failNext('PUT /video/', { lose: true });
    await platformFailure(adapter.publish(halfway));
    await adapter.publish(halfway);
    expect(initsWith('Lost first chunk')).toHaveLength(2);
    expect(postsWith('Lost first chunk')).toHaveLength(1);

    const atTheEnd = part('Lost last chunk', [video(sampleMp4(11 * mb))]);
    sim.failNext('PUT /video/', 'pass', { lose: true });
    await platformFailure(adapter.publish(atTheEnd));
    const result = await adapter.publish(atTheEnd);
    expect(initsWith('Lost last chunk')).toHaveLength(1);
    expect(postsWith('Lost last chunk').map((post) => post.id)).toEqual([result.releaseId]);
  });

  it('fails with TikTok\'s fail_reason in words; an internal failure is retried with a new publish', async () => {
    sim.publishing.failNextPublish('frame_rate_check_failed');
    const tooFast = part('Too fast', [video(sampleMp4(40_000))]);
    const bad = await platformFailure(adapter.publish(tooFast));
    expect(bad.kind).toBe('permanent');
    // A FAILED publish can never become a post: a later try of the part starts afresh.
    expect(tooFast.checkpoint.values.publishId).toBe('');
    expect(bad.message)
      .toBe('the video\'s frame rate is outside the 23 to 60 fps TikTok takes (frame_rate_check_failed)');

    const input = part('Internal trouble', [video(sampleMp4(40_000))]);
    sim.publishing.failNextPublish('internal');
    expect((await platformFailure(adapter.publish(input))).kind).toBe('retryable');
    expect(input.checkpoint.values.publishId).toBe('');
    await adapter.publish(input);
    expect(initsWith('Internal trouble')).toHaveLength(2);
    expect(postsWith('Internal trouble')).toHaveLength(1);
  });

  it('leaves a publish still processing to the next attempt, keeping its publish_id', async () => {
    sim.publishing.processingMs = 5_000;
    const input = part('Slow processing', [video(sampleMp4(40_000))]);
    const error = await platformFailure(adapter.publish(input));
    expect(error).toMatchObject({ kind: 'retryable', retryAfterMs: 60_000 });
    const publish = [...sim.publishing.publishes.values()].find((item) => item.postInfo.title === 'Slow processing');
    expect(input.checkpoint.values.publishId).toBe(publish?.publishId);

    sim.publishing.processingMs = 0;
    const result = await adapter.publish(input);
    expect(initsWith('Slow processing')).toHaveLength(1);
    expect(postsWith('Slow processing').map((post) => post.id)).toEqual([result.releaseId]);
  });
});

describe('TikTok video posts held to creator_info', () => {
  it('refuses a privacy level the account does not offer, before any init', async () => {
    const bea = await connectedChannel(sim, 'bea');
    const error = await platformFailure(adapter.publish(part('Not for Bea', [video(sampleMp4(40_000))], {}, bea)));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('TikTok: privacy_level PUBLIC_TO_EVERYONE is not one this account offers '
      + '(MUTUAL_FOLLOW_FRIENDS, SELF_ONLY); choose one of them (see the creatorInfo tool)');
    expect(initsWith('Not for Bea')).toHaveLength(0);
  });

  it('turns comments, Duet and Stitch off where the creator did, and refuses asking for them', async () => {
    const bea = await connectedChannel(sim, 'bea');
    await adapter.publish(part('Quiet video', [video(sampleMp4(40_000))], { privacy_level: 'SELF_ONLY' }, bea));
    expect(postsWith('Quiet video')[0]?.postInfo).toMatchObject({
      disable_comment: true, disable_duet: true, disable_stitch: true,
    });
    const settings = { privacy_level: 'SELF_ONLY', disable_duet: false };
    const asked = part('Wants Duet', [video(sampleMp4(40_000))], settings, bea);
    expect((await platformFailure(adapter.publish(asked))).message)
      .toBe('TikTok: the account has Duet turned off, so disable_duet cannot be false; '
        + 'leave it out or set it to true');
  });

  it('refuses a video longer than the account may post', async () => {
    const bea = await connectedChannel(sim, 'bea');
    const long = part('Too long', [video(sampleMp4(40_000), 45.4)], { privacy_level: 'SELF_ONLY' }, bea);
    expect((await platformFailure(adapter.publish(long))).message)
      .toBe('TikTok: the video lasts 45 seconds; this account may post videos of at most 30 seconds');
    expect(initsWith('Too long')).toHaveLength(0);
  });
});
