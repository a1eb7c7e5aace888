import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFacebookSimulator, type FacebookSimulator,
} from '../../../test/simulators/facebook/facebook-simulator.ts';
import { graphThrottle } from '../../../test/simulators/facebook/page-publishing-simulation.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4 } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput, PublishMedia } from '../kit/platform-adapter.ts';
import { createFacebookAdapter } from './adapter.ts';
import { facebookConnect } from './connect.ts';

let facebook: FacebookSimulator;
let adapter: PlatformAdapter;
let bakery: ChannelCredentials;
let books: ChannelCredentials;

const options = { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };

function part(channel: ChannelCredentials, content: string, media: PublishMedia[] = []): PublishInput {
  return { channel, content, media, settings: {}, idempotencyKey: content, checkpoint: memoryCheckpoint() };
}

function video(): PublishMedia {
  const bytes = sampleMp4(50_000);
  return {
    kind: 'video', mimeType: 'video/mp4', size: bytes.length, fileName: 'clip.mp4', alt: null,
    url: 'https://uploads.example/unused', open: () => Promise.resolve(Readable.from([bytes])),
  };
}

function removeItem(channel: ChannelCredentials, releaseId: string): Promise<void> {
  if (adapter.remove === undefined) throw new Error('the Facebook adapter has no remove');
  return adapter.remove(channel, { releaseId, settings: {} });
}

const deletes = () => facebook.received.filter((request) => request.method === 'DELETE');

beforeAll(async () => {
  facebook = await startFacebookSimulator();
  facebook.addPages('ada', [
    { id: '1001', name: 'Ada Bakery', pictureUrl: 'https://scontent.example/1001.jpg', tasks: ['CREATE_CONTENT'] },
    { id: '1002', name: 'Ada Books', pictureUrl: 'https://scontent.example/1002.jpg', tasks: ['CREATE_CONTENT'] },
  ]);
  facebook.authority.consentingUser = 'ada';
  const { authorized } = await authorizeAndConnect(facebookConnect, { app: facebook.app, ...options });
  const tokenOf = (id: string) => authorized.accounts.find((account) => account.accountId === id)?.accessToken ?? '';
  bakery = { channelId: 'c1', accessToken: tokenOf('1001'), instanceUrl: null };
  books = { channelId: 'c2', accessToken: tokenOf('1002'), instanceUrl: null };
  adapter = createFacebookAdapter(options, facebook.app);
});

afterAll(async () => {
  await facebook.close();
});

describe('facebook adapter: removing published items', () => {
  it('deletes a comment and its post with DELETE /{id}; a second removal finds them gone', async () => {
    const post = await adapter.publish(part(bakery, 'Gone by noon'));
    const comment = await adapter.comment({ ...part(bakery, 'A later part'), parentReleaseId: post.releaseId });
    for (const { releaseId } of [comment, post]) await removeItem(bakery, releaseId);

    expect(facebook.publishing.posts.some((item) => item.id === post.releaseId)).toBe(false);
    expect(facebook.publishing.comments.some((item) => item.id === comment.releaseId)).toBe(false);
    expect((await adapter.recentContent(bakery)).map((item) => item.id)).not.toContain(post.releaseId);
    expect(deletes().map((request) => request.path)).toEqual([
      `/v26.0/${comment.releaseId}`, `/v26.0/${post.releaseId}`,
    ]);
    expect(deletes()[0]?.headers.authorization).toBe(`OAuth ${bakery.accessToken}`);
    // Graph answers a deleted object with code 100/33 on HTTP 400: already gone, as wanted.
    await expect(removeItem(bakery, post.releaseId)).resolves.toBeUndefined();
  });

  it('deletes a video with the post that shows it', async () => {
    const published = await adapter.publish(part(bakery, 'A short film', [video()]));
    await removeItem(bakery, published.releaseId);
    expect(facebook.publishing.videos.some((item) => item.id === published.releaseId)).toBe(false);
    expect(facebook.publishing.posts.some((item) => item.videoId === published.releaseId)).toBe(false);
  });

  it('classifies refusals as publishing does: another Page\'s post, throttling', async () => {
    const post = await adapter.publish(part(bakery, 'Only the bakery may delete this'));
    const refused = await platformFailure(removeItem(books, post.releaseId));
    expect(refused.kind).toBe('disconnected');
    expect(facebook.publishing.posts.some((item) => item.id === post.releaseId)).toBe(true);

    facebook.publishing.failNext(graphThrottle(32, '1001', 5));
    const throttled = await platformFailure(removeItem(bakery, post.releaseId));
    expect(throttled).toMatchObject({ kind: 'retryable', retryAfterMs: 5 * 60_000 });
    expect(facebook.publishing.posts.some((item) => item.id === post.releaseId)).toBe(true);
  });
});
