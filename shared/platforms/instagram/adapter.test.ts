import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  startInstagramStandaloneSimulator,
} from '../../../test/simulators/instagram-standalone/instagram-standalone-simulator.ts';
import {
  throttledAnswer, type InstagramContentSimulation,
} from '../../../test/simulators/instagram/instagram-content-simulation.ts';
import { startInstagramSimulator } from '../../../test/simulators/instagram/instagram-simulator.ts';
import {
  sampleJpeg, startPublicMediaHost, type PublicMediaHost,
} from '../../../test/simulators/instagram/public-media-host.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { expiredToken, graphError } from '../../../test/simulators/facebook/meta-graph-simulation.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { samplePng, sampleMp4 } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { createInstagramStandaloneAdapter } from '../instagram-standalone/adapter.ts';
import { instagramStandaloneConnect } from '../instagram-standalone/connect.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import type { ConnectContext, PlatformApp } from '../kit/platform-connect.ts';
import { createInstagramAdapter } from './adapter.ts';
import { instagramConnect } from './connect.ts';

const accountId = '17841400000000001';
const profile = {
  username: 'ada.bakes', name: 'Ada Bakery', profilePictureUrl: 'https://cdninstagram.example/ada.jpg',
  followersCount: 1200, followsCount: 80,
};
const options = { timeoutMs: 1_000, userHosts: connectionPolicyFor(false) };
const timing = { firstPollMs: 5, maxPollMs: 20, maxWaitMs: 2_000 };

/** One way of connecting an Instagram account, started and connected the way a user connects it. */
interface Variant {
  provider: string;
  content: InstagramContentSimulation;
  adapter: PlatformAdapter;
  channel: ChannelCredentials;
  close(): Promise<void>;
}

function contextFor(app: PlatformApp): ConnectContext {
  return { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
}

async function facebookLoginVariant(): Promise<Variant> {
  const simulator = await startInstagramSimulator();
  simulator.linkAccount('ada', { id: '1001', name: 'Ada Bakery' }, { id: accountId, ...profile });
  simulator.authority.consentingUser = 'ada';
  const { authorized } = await authorizeAndConnect(instagramConnect, contextFor(simulator.app));
  return {
    provider: 'instagram',
    content: simulator.content,
    adapter: createInstagramAdapter(options, simulator.app, timing),
    channel: { channelId: 'c-fb', accessToken: authorized.accounts[0]?.accessToken ?? '', instanceUrl: null },
    close: () => simulator.close(),
  };
}

async function instagramLoginVariant(): Promise<Variant> {
  const simulator = await startInstagramStandaloneSimulator();
  simulator.addUser('ada', { userId: accountId, appScopedId: '7000000000000001', ...profile });
  simulator.authority.consentingUser = 'ada';
  const { authorized } = await authorizeAndConnect(instagramStandaloneConnect, contextFor(simulator.app));
  return {
    provider: 'instagram-standalone',
    content: simulator.content,
    adapter: createInstagramStandaloneAdapter(options, simulator.app, timing),
    channel: { channelId: 'c-ig', accessToken: authorized.accounts[0]?.accessToken ?? '', instanceUrl: null },
    close: () => simulator.close(),
  };
}

const variants: [string, () => Promise<Variant>][] = [
  ['Facebook Login', facebookLoginVariant],
  ['Instagram Login', instagramLoginVariant],
];

describe.each(variants)('Instagram publishing through %s, against the simulated Graph host', (_name, start) => {
  let variant: Variant;
  let media: PublicMediaHost;
  let jpeg: PublishMedia;
  let secondJpeg: PublishMedia;
  let png: PublishMedia;
  let mp4: PublishMedia;
  let checkpoint: MemoryCheckpoint;
  let content: InstagramContentSimulation;

  beforeAll(async () => {
    [variant, media] = await Promise.all([start(), startPublicMediaHost()]);
    content = variant.content;
    jpeg = media.add('bread.jpg', sampleJpeg(), { kind: 'image', mimeType: 'image/jpeg', alt: 'A loaf' });
    secondJpeg = media.add('cake.jpg', sampleJpeg(3_000), { kind: 'image', mimeType: 'image/jpeg' });
    png = media.add('bread.png', samplePng(), { kind: 'image', mimeType: 'image/png' });
    mp4 = media.add('oven.mp4', sampleMp4(), { kind: 'video', mimeType: 'video/mp4' });
  });
  afterAll(async () => {
    await Promise.all([variant.close(), media.close()]);
  });
  beforeEach(() => {
    checkpoint = memoryCheckpoint();
    content.videoProcessingReads = 1;
  });

  const input = (text: string, attached: PublishMedia[], settings: Record<string, unknown> = {}) => ({
    channel: variant.channel,
    content: text,
    media: attached,
    settings,
    idempotencyKey: `sps-post-${text}`,
    checkpoint,
  });
  const containerOf = (id: string | undefined) => content.containers.get(id ?? '');

  it('publishes a JPEG Instagram fetched from its public URL, with its caption and alt text', async () => {
    const result = await variant.adapter.publish(input('Fresh bread #bakery', [jpeg]));

    const [published] = content.mediaWithCaption('Fresh bread #bakery');
    expect(result).toEqual({ releaseId: published?.id, releaseURL: published?.permalink });
    expect(result.releaseURL).toMatch(/^https:\/\/www\.instagram\.com\/p\/[\w-]+\/$/);
    const container = containerOf(published?.containerId);
    expect(container?.fields).toEqual({ image_url: jpeg.url, caption: 'Fresh bread #bakery', alt_text: 'A loaf' });
    expect(container?.pulled).toMatchObject({ status: 200, contentType: 'image/jpeg', size: 2_000 });
    // The container was checkpointed before media_publish, the media id after.
    expect(checkpoint.saves.map((save) => Object.keys(save))).toEqual([['container', 'containerAt'], ['media']]);
    expect(checkpoint.values).toMatchObject({ container: published?.containerId, media: published?.id });
  });

  it('publishes a single video as a Reel once Instagram has processed it, with share_to_feed', async () => {
    content.videoProcessingReads = 2;
    const settings = { share_to_feed: false, thumb_offset: 500 };
    const result = await variant.adapter.publish(input('Oven tour', [mp4], settings));

    const [reel] = content.mediaWithCaption('Oven tour');
    expect(reel).toMatchObject({ id: result.releaseId, productType: 'REELS', mediaType: 'VIDEO' });
    expect(result.releaseURL).toMatch(/^https:\/\/www\.instagram\.com\/reel\//);
    expect(containerOf(reel?.containerId)?.fields).toEqual({
      media_type: 'REELS', video_url: mp4.url, share_to_feed: 'false', thumb_offset: '500', caption: 'Oven tour',
    });
  });

  it('publishes a story without a caption', async () => {
    const result = await variant.adapter.publish(input('Story text is not shown', [jpeg], { type: 'story' }));

    const story = content.media.find((item) => item.id === result.releaseId);
    expect(story).toMatchObject({ productType: 'STORY', caption: null });
    expect(containerOf(story?.containerId)?.fields).toEqual({ media_type: 'STORIES', image_url: jpeg.url });
  });

  it('publishes a carousel of items checkpointed one by one, then the CAROUSEL container', async () => {
    const settings = { collaborators: ['friend.shop'], location_id: '110843418940484' };
    const result = await variant.adapter.publish(input('Three things', [jpeg, mp4, secondJpeg], settings));

    const [album] = content.mediaWithCaption('Three things');
    expect(album).toMatchObject({ id: result.releaseId, mediaType: 'CAROUSEL_ALBUM' });
    const parent = containerOf(album?.containerId);
    expect(parent?.fields).toMatchObject({
      media_type: 'CAROUSEL', caption: 'Three things', collaborators: '["friend.shop"]', location_id: '110843418940484',
    });
    const children = parent?.children.map((id) => containerOf(id)?.fields);
    expect(children).toEqual([
      { image_url: jpeg.url, is_carousel_item: 'true', alt_text: 'A loaf' },
      { media_type: 'VIDEO', video_url: mp4.url, is_carousel_item: 'true' },
      { image_url: secondJpeg.url, is_carousel_item: 'true' },
    ]);
    expect(checkpoint.saves.slice(0, 3).map((save) => save.children?.split(',').length)).toEqual([1, 2, 3]);
    expect(checkpoint.values.children).toBe(parent?.children.join(','));
  });

  it('comments later parts under the post, once even when the answer was lost', async () => {
    const post = await variant.adapter.publish(input('Post with comments', [jpeg]));
    const first = await variant.adapter.comment({ ...input('First comment', []), parentReleaseId: post.releaseId });
    expect(first.releaseURL).toBe(post.releaseURL);
    expect(content.comments.find((item) => item.id === first.releaseId)).toMatchObject({
      mediaId: post.releaseId, text: 'First comment', from: { id: accountId, username: 'ada.bakes' },
    });

    checkpoint = memoryCheckpoint();
    content.failNext({ on: 'comments', loseResponse: true });
    const lost = await platformFailure(
      variant.adapter.comment({ ...input('Second comment', []), parentReleaseId: post.releaseId }),
    );
    expect(lost.kind).toBe('retryable');
    const retried = await variant.adapter.comment({
      ...input('Second comment', []), checkpoint: memoryCheckpoint(checkpoint.values), parentReleaseId: post.releaseId,
    });

    const seconds = content.comments.filter((item) => item.text === 'Second comment');
    expect(seconds).toHaveLength(1);
    expect(retried.releaseId).toBe(seconds[0]?.id);
  });

  it('fails with Instagram’s reason when a video container ends in ERROR', async () => {
    const notVideo = media.add('not-a-video.mp4', samplePng(), { kind: 'video', mimeType: 'video/mp4' });
    const error = await platformFailure(variant.adapter.publish(input('Broken video', [notVideo])));

    expect(error.kind).toBe('permanent');
    expect(error.provider).toBe(variant.provider);
    expect(error.message).toBe(
      'Error: The video format is not supported. Please check the specs and try again (2207026)',
    );
    expect(content.mediaWithCaption('Broken video')).toEqual([]);
  });

  it('shows Instagram’s own words when it refuses an image that is not a JPEG', async () => {
    const error = await platformFailure(variant.adapter.publish(input('A PNG', [png])));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('The image format is not supported. Only JPEG images can be published.');
    expect([...content.containers.values()].some((container) => container.fields.image_url === png.url)).toBe(false);
  });

  it('publishes once when media_publish was accepted and its answer lost: the retry finds the same media', async () => {
    content.failNext({ on: 'media_publish', loseResponse: true });
    const lost = await platformFailure(variant.adapter.publish(input('Lost answer', [jpeg])));
    expect(lost.kind).toBe('retryable');
    const requestsBefore = content.publishRequests.length;

    const retry = { ...input('Lost answer', [jpeg]), checkpoint: memoryCheckpoint(checkpoint.values) };
    const retried = await variant.adapter.publish(retry);

    const published = content.mediaWithCaption('Lost answer');
    expect(published).toHaveLength(1);
    expect(retried).toEqual({ releaseId: published[0]?.id, releaseURL: published[0]?.permalink });
    // The retry read the container (PUBLISHED) and the account's media; it did not publish again.
    expect(content.publishRequests).toHaveLength(requestsBefore);
  });

  it('sets the part aside as unconfirmed when a published container’s media cannot be found', async () => {
    content.failNext({ on: 'media_publish', loseResponse: true });
    await platformFailure(variant.adapter.publish(input('Renamed later', [jpeg])));
    // Someone edited the caption in the app before the retry.
    const [published] = content.mediaWithCaption('Renamed later');
    if (published !== undefined) published.caption = 'Edited in the app';

    const error = await platformFailure(
      variant.adapter.publish({ ...input('Renamed later', [jpeg]), checkpoint: memoryCheckpoint(checkpoint.values) }),
    );

    expect(error.kind).toBe('unconfirmed');
    expect(error.message).toMatch(/^Instagram published container \d+ but no media with this caption was found/);
    expect(content.media.filter((item) => item.containerId === published?.containerId)).toHaveLength(1);
  });

  it('publishes the checkpointed container after a refused media_publish, and a new one once it expired', async () => {
    const down = graphError('An unexpected error has occurred.', 2, { status: 500 });
    content.failNext({ on: 'media_publish', answer: down });
    expect((await platformFailure(variant.adapter.publish(input('Kept container', [jpeg])))).kind).toBe('retryable');
    const kept = checkpoint.values.container;
    const containersBefore = content.containers.size;

    const resume = { ...input('Kept container', [jpeg]), checkpoint: memoryCheckpoint(checkpoint.values) };
    const resumed = await variant.adapter.publish(resume);
    expect(content.containers.size).toBe(containersBefore);
    expect(content.media.find((item) => item.id === resumed.releaseId)?.containerId).toBe(kept);

    checkpoint = memoryCheckpoint();
    content.failNext({ on: 'media_publish', answer: down });
    await platformFailure(variant.adapter.publish(input('Expired container', [jpeg])));
    const stale = checkpoint.values.container ?? '';
    content.expire(stale);
    const renewed = await variant.adapter.publish({ ...input('Expired container', [jpeg]), checkpoint });
    const made = content.media.find((item) => item.id === renewed.releaseId);
    expect(made?.containerId).not.toBe(stale);
    expect(content.mediaWithCaption('Expired container')).toHaveLength(1);
  });

  it('waits for Meta’s reset when throttled, whatever the HTTP status', async () => {
    content.failNext({ on: 'media', answer: throttledAnswer(accountId, 7) });
    const business = await platformFailure(variant.adapter.publish(input('Throttled', [jpeg])));
    expect(business).toMatchObject({ kind: 'retryable', httpStatus: 400, retryAfterMs: 7 * 60_000 });

    content.failNext({ on: 'media', answer: graphError('(#4) Application request limit reached', 4) });
    const app = await platformFailure(variant.adapter.publish(input('Throttled', [jpeg])));
    expect(app).toMatchObject({ kind: 'retryable', retryAfterMs: 60_000 });

    const cap = graphError('Application request limit reached', 9, { subcode: 2207042 });
    content.failNext({ on: 'media_publish', answer: cap });
    const daily = await platformFailure(variant.adapter.publish(input('Over the cap', [jpeg])));
    expect(daily).toMatchObject({ kind: 'retryable', retryAfterMs: 3_600_000 });
  });

  it('calls a token Meta refuses with code 190 disconnected', async () => {
    content.failNext({ on: 'any', answer: expiredToken(Date.now()) });
    const error = await platformFailure(variant.adapter.publish(input('Dead token', [jpeg])));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toMatch(/^Error validating access token: Session has expired on /);
  });

  it('reads the publishing limit, the account’s counters, a post’s counters and its recent media', async () => {
    const post = await variant.adapter.publish(input('Counted post', [jpeg]));
    const stored = content.media.find((item) => item.id === post.releaseId);
    if (stored !== undefined) {
      stored.likeCount = 12;
      stored.insights = { views: 340, reach: 210, saved: 4, shares: 3 };
    }
    const nice = { ...input('Nice', []), checkpoint: memoryCheckpoint(), parentReleaseId: post.releaseId };
    await variant.adapter.comment(nice);

    const limit = await variant.adapter.tools.publishingLimit?.(variant.channel, {});
    const feed = content.media.filter((item) => item.productType !== 'STORY');
    expect(limit).toEqual({ used: content.media.length, quota: 100, windowSeconds: 86400 });
    expect(await variant.adapter.analytics?.account(variant.channel)).toEqual([
      { label: 'Followers', value: 1200 }, { label: 'Following', value: 80 }, { label: 'Posts', value: feed.length },
    ]);
    expect(await variant.adapter.analytics?.post(variant.channel, post.releaseId)).toEqual([
      { label: 'Likes', value: 12 }, { label: 'Comments', value: 1 }, { label: 'Views', value: 340 },
      { label: 'Reach', value: 210 }, { label: 'Saved', value: 4 }, { label: 'Shares', value: 3 },
    ]);
    const recent = await variant.adapter.recentContent(variant.channel);
    expect(recent[0]).toEqual({ id: post.releaseId, url: stored?.permalink });
    expect(recent.map((item) => item.id)).toEqual(feed.map((item) => item.id).reverse());
  });
});

describe('Instagram through Facebook Login: the Page behind the token', () => {
  it('publishes as the Page’s linked account; the token is disconnected once the Page role is gone', async () => {
    const [simulator, media] = await Promise.all([startInstagramSimulator(), startPublicMediaHost()]);
    try {
      const shop = { id: '17841400000000005', ...profile, username: 'ada.shop' };
      simulator.linkAccount('ada', { id: '1005', name: 'Ada Shop' }, shop);
      simulator.authority.consentingUser = 'ada';
      const { authorized } = await authorizeAndConnect(instagramConnect, contextFor(simulator.app));
      const channel = { channelId: 'c', accessToken: authorized.accounts[0]?.accessToken ?? '', instanceUrl: null };
      const adapter = createInstagramAdapter(options, simulator.app, timing);
      const jpeg = media.add('shop.jpg', sampleJpeg(), { kind: 'image', mimeType: 'image/jpeg' });
      const input = (content: string) => ({
        channel, content, media: [jpeg], settings: {}, idempotencyKey: content, checkpoint: memoryCheckpoint(),
      });

      const published = await adapter.publish(input('Shop post'));
      expect(simulator.content.media.find((item) => item.id === published.releaseId)?.owner).toBe('17841400000000005');
      const me = simulator.received.find((request) => request.path === '/v26.0/me');
      expect(me?.query.get('fields')).toBe('id,instagram_business_account{id,username}');

      simulator.removePage('ada', '1005');
      const error = await platformFailure(adapter.publish(input('After the role is gone')));
      expect(error.kind).toBe('disconnected');
      expect(error.message).toBe('Error validating access token: The user is not an administrator of the page.');
    } finally {
      await Promise.all([simulator.close(), media.close()]);
    }
  });
});
