import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  sampleJpeg, startPublicMediaHost, type PublicMediaHost,
} from '../../../test/simulators/instagram/public-media-host.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { connectedChannel, startTikTokWithCreators } from '../../../test/simulators/tiktok/tiktok-test-accounts.ts';
import type { RunningTikTokSimulator } from '../../../test/simulators/tiktok/tiktok-simulator.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput, PublishMedia } from '../kit/platform-adapter.ts';
import { createTikTokAdapter } from './adapter.ts';

const initPath = 'POST /v2/post/publish/content/init/';
const polling = { firstWaitMs: 20, maxIntervalMs: 200, maxWaitMs: 800, publicIdWaitMs: 300 };

let sim: RunningTikTokSimulator;
let files: PublicMediaHost;
let adapter: PlatformAdapter;
let ada: ChannelCredentials;

/** A WebP's RIFF header: enough for a server that reads the signature. */
function sampleWebp(totalBytes = 1_500): Buffer {
  const bytes = Buffer.alloc(totalBytes);
  bytes.write('RIFF', 0, 'latin1');
  bytes.writeUInt32LE(totalBytes - 8, 4);
  bytes.write('WEBPVP8 ', 8, 'latin1');
  return bytes;
}

type TestPart = PublishInput & { checkpoint: MemoryCheckpoint };

function part(content: string, media: PublishMedia[], settings: Record<string, unknown> = {}): TestPart {
  return {
    channel: ada, content, media, settings: { privacy_level: 'PUBLIC_TO_EVERYONE', ...settings },
    idempotencyKey: `k-${content}`, checkpoint: memoryCheckpoint(),
  };
}

const postsWith = (description: string) =>
  sim.publishing.posts().filter((post) => post.description === description);
const initsWith = (text: string) => sim.requestsTo(initPath).filter((request) => request.text.includes(text));

beforeAll(async () => {
  [sim, files] = await Promise.all([startTikTokWithCreators(), startPublicMediaHost()]);
  adapter = createTikTokAdapter(
    { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) },
    { apiUrl: sim.url },
    { chunkBytes: 5 * 1024 * 1024, polling },
  );
});
afterAll(async () => { await Promise.all([sim.close(), files.close()]); });
beforeEach(async () => {
  sim.app.verifiedUrlPrefixes = [`${files.url}/uploads/`];
  ada = await connectedChannel(sim, 'ada');
});

describe('TikTok photo posts', () => {
  it('names each photo\'s public URL; TikTok fetches them and posts title and description', async () => {
    const jpeg = sampleJpeg(3_000);
    const webp = sampleWebp();
    const photos = [
      files.add('first.jpg', jpeg, { kind: 'image', mimeType: 'image/jpeg' }),
      files.add('second.webp', webp, { kind: 'image', mimeType: 'image/webp' }),
    ];
    const settings = { title: 'Holiday', auto_add_music: true };
    const result = await adapter.publish(part('Two photos, one story', photos, settings));

    const [post] = postsWith('Two photos, one story');
    expect(post?.photos.map((bytes) => bytes.length)).toEqual([3_000, 1_500]);
    expect(post?.photos[0]?.equals(jpeg)).toBe(true);
    expect(post?.photos[1]?.equals(webp)).toBe(true);
    const releaseURL = `https://www.tiktok.com/@ada.films/photo/${post?.id ?? ''}`;
    expect(result).toEqual({ releaseId: post?.id, releaseURL });
    const [init] = initsWith('Two photos, one story');
    expect(JSON.parse(init?.text ?? '{}')).toEqual({
      post_info: {
        title: 'Holiday', description: 'Two photos, one story', privacy_level: 'PUBLIC_TO_EVERYONE',
        disable_comment: false, auto_add_music: true,
      },
      source_info: { source: 'PULL_FROM_URL', photo_images: photos.map((photo) => photo.url), photo_cover_index: 0 },
      post_mode: 'DIRECT_POST',
      media_type: 'PHOTO',
    });
  });

  it('sends photos to the inbox with post_mode MEDIA_UPLOAD, reading the username from the profile', async () => {
    const photo = files.add('inbox.jpg', sampleJpeg(), { kind: 'image', mimeType: 'image/jpeg' });
    const creatorInfo = sim.requestsTo('POST /v2/post/publish/creator_info/query/').length;
    const result = await adapter.publish(part('Finish me in the app', [photo], { post_mode: 'MEDIA_UPLOAD' }));

    const shared = sim.publishing.inbox().at(-1);
    expect(shared?.media).toBe('photo');
    expect(result).toEqual({ releaseId: shared?.publishId, releaseURL: 'https://www.tiktok.com/@ada.films' });
    expect(sim.requestsTo('POST /v2/post/publish/creator_info/query/')).toHaveLength(creatorInfo);
    expect(JSON.parse(initsWith('Finish me in the app')[0]?.text ?? '{}')).toMatchObject({
      post_mode: 'MEDIA_UPLOAD', post_info: { description: 'Finish me in the app' },
    });
  });

  it('shows TikTok\'s refusal of an unverified URL prefix, and may send the request again later', async () => {
    sim.app.verifiedUrlPrefixes = ['https://media.sps.example/'];
    const input = part('Unverified', [files.add('u.jpg', sampleJpeg(), { kind: 'image', mimeType: 'image/jpeg' })]);
    const error = await platformFailure(adapter.publish(input));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe(`The domain or URL prefix of ${files.url}/uploads/u.jpg has not been verified for this `
      + 'app. (url_ownership_unverified); verify the domain of the media address (UPLOADS_PUBLIC_URL) in TikTok\'s '
      + 'developer portal');
    expect(input.checkpoint.values.photoInitSentAt).toBe('');
  });

  it('fails with photo_pull_failed for a photo out of reach, and on the format of one that is no photo', async () => {
    const missing = { ...files.add('gone.jpg', sampleJpeg(), { kind: 'image', mimeType: 'image/jpeg' }) };
    missing.url = `${files.url}/uploads/never-stored.jpg`;
    const gone = await platformFailure(adapter.publish(part('Gone', [missing])));
    expect(gone).toMatchObject({
      kind: 'permanent', message: 'TikTok could not download the photos from their public URL (photo_pull_failed)',
    });

    // A PNG named .jpg: TikTok judges the bytes.
    const png = files.add('fake.jpg', samplePng(2_000), { kind: 'image', mimeType: 'image/jpeg' });
    const wrong = await platformFailure(adapter.publish(part('Fake JPEG', [png])));
    expect(wrong.message).toMatch(/\(file_format_check_failed\)$/);
  });

  it('sets the part aside as unconfirmed when the answer to a photo init was lost', async () => {
    const photo = files.add('lost.jpg', sampleJpeg(), { kind: 'image', mimeType: 'image/jpeg' });
    const input = part('Lost photo init', [photo]);
    sim.failNext(initPath, { lose: true });
    expect((await platformFailure(adapter.publish(input))).kind).toBe('retryable');
    await sim.publishing.pullsDone();

    const retried = await platformFailure(adapter.publish(input));
    expect(retried.kind).toBe('unconfirmed');
    expect(initsWith('Lost photo init')).toHaveLength(1);
    // TikTok did post it: sending it again would have made a second post.
    expect(postsWith('Lost photo init')).toHaveLength(1);
  });

  it('refuses PNG photos and a mix of photos and a video before asking TikTok', async () => {
    const png = files.add('p.png', samplePng(), { kind: 'image', mimeType: 'image/png' });
    expect((await platformFailure(adapter.publish(part('PNG', [png])))).message)
      .toBe('TikTok takes JPEG or WebP photos, not image/png');
    const clip = files.add('c.mp4', Buffer.alloc(10), { kind: 'video', mimeType: 'video/mp4' });
    const jpeg = files.add('j.jpg', sampleJpeg(), { kind: 'image', mimeType: 'image/jpeg' });
    expect((await platformFailure(adapter.publish(part('Mixed', [jpeg, clip])))).message)
      .toBe('a TikTok post is 1 video or 1 to 35 photos');
    expect(initsWith('PNG')).toHaveLength(0);
  });
});
