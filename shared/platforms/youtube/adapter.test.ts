import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  quotaExceeded, rateLimitExceeded, uploadLimitExceeded,
} from '../../../test/simulators/google/youtube-answers.ts';
import { startYoutubeSimulator, type YoutubeSimulator } from '../../../test/simulators/google/youtube-simulator.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { OAuthConnect } from '../kit/platform-connect.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput, PublishMedia } from '../kit/platform-adapter.ts';
import { createYoutubeAdapter, videoUrl } from './adapter.ts';
import { youtubeConnect } from './connect.ts';
import { msUntilPacificMidnight } from './pacific-midnight.ts';

const ada = {
  id: 'UCadafilms00000000000001', title: 'Ada Films', customUrl: '@adafilms', thumbnail: 'https://yt3.ggpht.com/a.jpg',
};
const bea = {
  id: 'UCbeatalks00000000000002', title: 'Bea Talks', customUrl: '@beatalks', thumbnail: 'https://yt3.ggpht.com/b.jpg',
};
const mp4 = sampleMp4(40_000);
const png = samplePng(5_000);

let sim: YoutubeSimulator;
let adapter: PlatformAdapter;
let channel: ChannelCredentials;
let beaChannel: ChannelCredentials;

function file(bytes: Buffer, mimeType: string, fileName: string): PublishMedia {
  return {
    kind: mimeType.startsWith('video/') ? 'video' : 'image',
    mimeType,
    size: bytes.length,
    fileName,
    alt: null,
    url: `http://127.0.0.1/uploads/${fileName}`,
    open: () => Promise.resolve(Readable.from([bytes])),
  };
}

const video = file(mp4, 'video/mp4', 'clip.mp4');
const thumbnail = file(png, 'image/png', 'cover.png');

function part(settings: Record<string, unknown>, extra: Partial<PublishInput> = {}): PublishInput & {
  checkpoint: MemoryCheckpoint;
} {
  return {
    channel, content: 'A description', media: [video], settings, idempotencyKey: 'sps-post-1', ...extra,
    checkpoint: memoryCheckpoint(),
  };
}

const titled = (title: string) => sim.store.videos.filter((item) => item.snippet.title === title);

async function connect(user: string, connection: OAuthConnect = youtubeConnect): Promise<ChannelCredentials> {
  sim.authority.consentingUser = user;
  const app = {
    clientId: sim.clientId, clientSecret: sim.clientSecret, apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url,
    botToken: null,
  };
  const context = { app, timeoutMs: 5_000, userHosts: connectionPolicyFor(false) };
  const { tokens } = await authorizeAndConnect(connection, context);
  return { channelId: `c-${user}`, accessToken: tokens.accessToken, instanceUrl: null };
}

beforeAll(async () => {
  sim = await startYoutubeSimulator({
    ada: { channels: [ada], businessAccounts: [] },
    bea: { channels: [bea], businessAccounts: [] },
    left: { channels: [{ ...bea, id: 'UCleft000000000000000003' }], businessAccounts: [] },
  });
  channel = await connect('ada');
  beaChannel = await connect('bea');
  adapter = createYoutubeAdapter({ timeoutMs: 5_000, userHosts: connectionPolicyFor(false) }, { apiUrl: sim.url });
});
afterAll(async () => { await sim.close(); });

describe('YouTube adapter against the simulator', () => {
  it('uploads the video with the settings as its snippet and status, the post text as description', async () => {
    const settings = {
      title: 'Ada’s first video', privacyStatus: 'unlisted', categoryId: '27', tags: ['math', 'engines'],
      defaultLanguage: 'en', selfDeclaredMadeForKids: false, embeddable: true, license: 'creativeCommon',
      containsSyntheticMedia: false, notifySubscribers: false,
    };
    const result = await adapter.publish(part(settings, { content: 'On the Analytical Engine' }));

    const [made] = titled('Ada’s first video');
    expect(result).toEqual({ releaseId: made?.id, releaseURL: `https://www.youtube.com/watch?v=${made?.id ?? ''}` });
    expect(made).toMatchObject({
      channelId: ada.id,
      mimeType: 'video/mp4',
      notifySubscribers: false,
      snippet: {
        title: 'Ada’s first video', description: 'On the Analytical Engine', categoryId: '27',
        tags: ['math', 'engines'], defaultLanguage: 'en',
      },
      status: {
        privacyStatus: 'unlisted', selfDeclaredMadeForKids: false, embeddable: true, license: 'creativeCommon',
        containsSyntheticMedia: false,
      },
    });
    expect(made?.bytes.equals(mp4)).toBe(true);
    const opened = sim.received.filter((request) => request.path === '/upload/youtube/v3/videos').at(-1);
    expect(opened?.query.get('part')).toBe('snippet,status');
    expect(opened?.headers['x-upload-content-length']).toBe(String(mp4.length));
    expect(opened?.headers['x-upload-content-type']).toBe('video/mp4');
  });

  it('sets the attached image as custom thumbnail once, even when a retry runs the part again', async () => {
    const input = part({ title: 'With a cover' }, { media: [video, thumbnail] });
    sim.store.failNext('thumbnails.set', { status: 503, body: { error: { code: 503, message: 'Backend Error' } } });
    const failure = await platformFailure(adapter.publish(input));
    expect(failure.kind).toBe('retryable');
    expect(input.checkpoint.values.videoId).toBe(titled('With a cover')[0]?.id);

    const result = await adapter.publish(input);
    const made = titled('With a cover');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(made[0]?.id);
    expect(made[0]?.thumbnail?.bytes.equals(png)).toBe(true);
    expect(input.checkpoint.values.thumbnailOf).toBe(made[0]?.id);
    const sets = sim.received.filter((request) => request.path === '/upload/youtube/v3/thumbnails/set');
    expect(sets.at(-1)?.query.get('videoId')).toBe(made[0]?.id);
  });

  it('keeps the video published, with a warning, when the channel may not set custom thumbnails', async () => {
    sim.store.noCustomThumbnails.add(bea.id);
    const input = part({ title: 'No custom cover' }, { channel: beaChannel, media: [thumbnail, video] });
    const result = await adapter.publish(input);
    // A retry of the part (a later step failed) answers the same warning without asking YouTube again.
    const setsBefore = sim.received.filter((request) => request.path === '/upload/youtube/v3/thumbnails/set').length;
    const again = await adapter.publish(input);
    sim.store.noCustomThumbnails.delete(bea.id);

    const [made] = titled('No custom cover');
    const warning = `the video is on YouTube at ${videoUrl(made?.id ?? '')}, but its custom thumbnail was not `
      + 'set: YouTube: YouTube does not allow this for the channel (The authenticated user doesn’t have '
      + 'permissions for uploading and setting custom thumbnails for the current video.)';
    expect(result).toEqual({ releaseId: made?.id, releaseURL: videoUrl(made?.id ?? ''), warnings: [warning] });
    expect(again).toEqual(result);
    expect(titled('No custom cover')).toHaveLength(1);
    expect(made?.thumbnail).toBeNull();
    expect(sim.received.filter((request) => request.path === '/upload/youtube/v3/thumbnails/set'))
      .toHaveLength(setsBefore);
  });

  it('sets the video\'s chosen poster as its thumbnail, before an image beside it; never its own frame', async () => {
    const chosenBytes = samplePng(7_000);
    const poster = (bytes: Buffer, chosen: boolean) => ({
      mimeType: 'image/png', fileName: 'poster.png', url: 'http://127.0.0.1/uploads/poster.png', chosen,
      open: () => Promise.resolve(Readable.from([bytes])),
    });
    await adapter.publish(part({ title: 'Chosen poster' }, {
      media: [{ ...video, poster: poster(chosenBytes, true) }, thumbnail],
    }));
    const [made] = titled('Chosen poster');
    expect(made?.thumbnail?.mimeType).toBe('image/png');
    expect(made?.thumbnail?.bytes.equals(chosenBytes)).toBe(true);
    const sets = sim.received.filter((request) => request.path === '/upload/youtube/v3/thumbnails/set');
    expect(sets.at(-1)?.query.get('videoId')).toBe(made?.id);

    // The frame the media worker took is YouTube's own business: no thumbnails.set for it.
    await adapter.publish(part({ title: 'Frame only' }, { media: [{ ...video, poster: poster(png, false) }] }));
    expect(titled('Frame only')[0]?.thumbnail).toBeNull();
    expect(sim.received.filter((request) => request.path === '/upload/youtube/v3/thumbnails/set'))
      .toHaveLength(sets.length);
  });

  it('warns, without sending it, of a chosen poster over YouTube\'s 2 MB', async () => {
    const big = Buffer.concat([samplePng(1_000), Buffer.alloc(2 * 1024 * 1024)]);
    const sent = sim.received.filter((request) => request.path === '/upload/youtube/v3/thumbnails/set').length;
    const result = await adapter.publish(part({ title: 'Huge poster' }, {
      media: [{ ...video, poster: {
        mimeType: 'image/png', fileName: 'huge.png', url: 'http://127.0.0.1/uploads/huge.png', chosen: true,
        open: () => Promise.resolve(Readable.from([big])),
      } }],
    }));
    expect(result.warnings).toEqual([expect.stringContaining('huge.png is larger than the 2 MB YouTube takes')]);
    expect(titled('Huge poster')).toHaveLength(1);
    expect(sim.received.filter((request) => request.path === '/upload/youtube/v3/thumbnails/set')).toHaveLength(sent);
  });

  it('adds the video to the playlist once, finding the item when the insert\'s answer was lost', async () => {
    const playlist = sim.store.addPlaylist(ada.id, 'Engines');
    const input = part({ title: 'In a playlist', playlistId: playlist.id });
    sim.store.failNext('playlistItems.insert', { lose: true });
    const failure = await platformFailure(adapter.publish(input));
    expect(failure.kind).toBe('retryable');

    await adapter.publish(input);
    const [made] = titled('In a playlist');
    expect(playlist.items.map((item) => item.videoId)).toEqual([made?.id]);
    expect(input.checkpoint.values.playlistItem).toBe(playlist.items[0]?.id);
    const inserts = sim.received.filter((request) => request.path === '/youtube/v3/playlistItems'
      && request.method === 'POST');
    expect(inserts.filter((request) => request.text.includes(made?.id ?? '-'))).toHaveLength(1);
  });

  it('asks to reconnect a channel connected without the playlist permission', async () => {
    const uploadOnly: OAuthConnect = {
      ...youtubeConnect,
      provider: (app) => {
        const current = youtubeConnect.provider(app);
        return { ...current, scopes: current.scopes.filter((scope) => !scope.endsWith('youtube.force-ssl')) };
      },
    };
    const older = await connect('bea', uploadOnly);
    const playlist = sim.store.addPlaylist(bea.id, 'Talks');
    const failure = await platformFailure(adapter.publish(part({ title: 'Old grant', playlistId: playlist.id }, {
      channel: older,
    })));
    expect(failure.kind).toBe('permanent');
    expect(failure.message).toMatch(
      /but adding it to playlist .* failed: YouTube: the channel was connected without a permission/,
    );
    expect(playlist.items).toEqual([]);
  });

  it('refuses comments: YouTube posts are one video', async () => {
    const failure = await platformFailure(adapter.comment({ ...part({ title: 'Never' }), parentReleaseId: 'abc' }));
    expect(failure.kind).toBe('permanent');
    expect(failure.message).toMatch(/does not publish threads or comments/);
  });

  it('refuses settings without a title before sending anything', async () => {
    const received = sim.received.length;
    const failure = await platformFailure(adapter.publish(part({ privacyStatus: 'public' })));
    expect(failure.kind).toBe('permanent');
    expect(failure.message).toMatch(/^the YouTube settings are not valid: title:/);
    expect(sim.received.length).toBe(received);
  });
});

describe('YouTube refusals', () => {
  it('waits for midnight Pacific time when the daily quota is spent', async () => {
    sim.store.failNext('videos.insert', quotaExceeded);
    const before = Date.now();
    const failure = await platformFailure(adapter.publish(part({ title: 'Over quota' })));
    const after = Date.now();
    expect(failure.kind).toBe('retryable');
    expect(failure.httpStatus).toBe(403);
    expect(failure.retryAfterMs).toBeGreaterThanOrEqual(msUntilPacificMidnight(after) + 60_000);
    expect(failure.retryAfterMs).toBeLessThanOrEqual(msUntilPacificMidnight(before) + 60_000);
    expect(failure.message).toBe('YouTube: the daily YouTube API quota of this installation\'s Google project is '
      + 'spent until midnight Pacific time (The request cannot be completed because you have exceeded your quota.)');
  });

  it('backs off a minute on a rate limit', async () => {
    sim.store.failNext('videos.insert', rateLimitExceeded);
    const failure = await platformFailure(adapter.publish(part({ title: 'Too fast' })));
    expect(failure).toMatchObject({ kind: 'retryable', httpStatus: 429, retryAfterMs: 60_000 });
  });

  it('fails the post on the channel\'s upload limit and on metadata YouTube refuses, in its words', async () => {
    sim.store.failNext('videos.insert', uploadLimitExceeded);
    const limited = await platformFailure(adapter.publish(part({ title: 'One too many' })));
    expect(limited.kind).toBe('permanent');
    expect(limited.message).toMatch(/^YouTube: the channel has uploaded as many videos as YouTube allows/);

    const category = await platformFailure(adapter.publish(part({ title: 'Odd category', categoryId: '999' })));
    expect(category.kind).toBe('permanent');
    expect(category.message).toBe('YouTube: The snippet.categoryId property specifies an invalid category ID. Use '
      + 'the videoCategories.list method to retrieve supported categories.');
    expect(titled('One too many')).toEqual([]);
  });

  it('says the Google account has no channel any more', async () => {
    const left = await connect('left');
    const user = sim.users.get('left');
    if (user !== undefined) user.channels = [];
    const failure = await platformFailure(adapter.publish(part({ title: 'Nowhere' }, { channel: left })));
    expect(failure.kind).toBe('permanent');
    expect(failure.message).toMatch(/^YouTube: the Google account has no YouTube channel: create one/);
  });

  it('asks for a token refresh once the access token\'s hour is over', async () => {
    sim.authority.now = () => Date.now() + 3_600_000;
    const failure = await platformFailure(adapter.publish(part({ title: 'Expired' })));
    sim.authority.now = Date.now;
    expect(failure.kind).toBe('refresh_token');
    expect(failure.httpStatus).toBe(401);
  });
});

describe('YouTube tools, analytics and recent content', () => {
  it('lists the channel\'s playlists across pages', async () => {
    const own = sim.store.playlists.filter((playlist) => playlist.channelId === ada.id);
    sim.store.addPlaylist(ada.id, 'Drafts', 'private');
    sim.store.addPlaylist(ada.id, 'Lectures', 'unlisted');
    const listed = await adapter.tools.playlists?.(channel, {});
    expect(listed).toEqual([...own, ...sim.store.playlists.slice(-2)].map((playlist) => ({
      id: playlist.id, title: playlist.title, itemCount: playlist.items.length, privacyStatus: playlist.privacyStatus,
    })));
    const pages = sim.received.filter((request) => request.path === '/youtube/v3/playlists');
    expect(pages.length).toBeGreaterThan(1);

    const failure = await platformFailure(adapter.tools.playlists?.(channel, { mine: false }) ?? Promise.resolve());
    expect(failure.kind).toBe('permanent');
  });

  it('reads the channel\'s subscribers, views and videos, and a video\'s views, likes and comments', async () => {
    sim.store.subscribers.set(ada.id, 1234);
    const [first, second] = sim.store.videosOf(ada.id);
    if (first === undefined || second === undefined) throw new Error('the tests above upload Ada\'s videos');
    first.statistics = { viewCount: 90, likeCount: 7, commentCount: 3 };
    second.statistics = { viewCount: 10, likeCount: 1, commentCount: 0 };
    expect(await adapter.analytics?.account(channel)).toEqual([
      { label: 'Subscribers', value: 1234 },
      { label: 'Views', value: 100 },
      { label: 'Videos', value: sim.store.videosOf(ada.id).length },
    ]);
    expect(await adapter.analytics?.post(channel, first.id)).toEqual([
      { label: 'Views', value: 90 }, { label: 'Likes', value: 7 }, { label: 'Comments', value: 3 },
    ]);
    sim.store.hiddenSubscribers.add(ada.id);
    expect((await adapter.analytics?.account(channel))?.map((counter) => counter.label)).toEqual(['Views', 'Videos']);
    sim.store.hiddenSubscribers.delete(ada.id);

    const gone = await platformFailure(adapter.analytics?.post(channel, 'nosuchvideo') ?? Promise.resolve());
    expect(gone.message).toMatch(/video nosuchvideo was not found/);
  });

  it('lists the channel\'s latest uploads, newest first', async () => {
    const recent = await adapter.recentContent(channel);
    const uploaded = sim.store.videosOf(ada.id).reverse();
    expect(recent).toEqual(uploaded.map((item) => ({ id: item.id, url: videoUrl(item.id) })));
  });
});
