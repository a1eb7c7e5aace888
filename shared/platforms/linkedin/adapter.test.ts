import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { connectedChannel, fileMedia } from '../../../test/simulators/linkedin/linkedin-channels.ts';
import {
  startLinkedinSimulator, type LinkedinSimulator,
} from '../../../test/simulators/linkedin/linkedin-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { makeTestMedia } from '../../../test/support/test-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput } from '../kit/platform-adapter.ts';
import { createLinkedinAdapter } from './adapter.ts';
import { linkedinConnect } from './connect.ts';
import { untilUtcMidnight } from '../linkedin-family/linkedin-errors.ts';

const files = makeTestMedia();
const ada = {
  sub: 'yrZCpj2Z12', name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace',
  picture: 'https://media.licdn.com/ada.jpg', email: 'ada@example.org',
};
const author = `urn:li:person:${ada.sub}`;

let sim: LinkedinSimulator;
let adapter: PlatformAdapter;
let channel: ChannelCredentials;

function part(content: string, extra: Partial<PublishInput> = {}): PublishInput {
  return {
    channel, content, media: [], settings: {}, idempotencyKey: 'unused', checkpoint: memoryCheckpoint(), ...extra,
  };
}

const postNamed = (text: string) => sim.publishing.posts.filter((post) => post.shownText === text);

beforeAll(async () => {
  sim = await startLinkedinSimulator();
  sim.addMember(ada);
  sim.authority.consentingUser = ada.sub;
  sim.publishing.videoPartBytes = 16 * 1024;
  channel = await connectedChannel(linkedinConnect, sim);
  const wait = { pollIntervalMs: 10, pollTimeoutMs: 2_000 };
  const options = { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
  adapter = createLinkedinAdapter(options, { apiUrl: sim.url }, wait);
});

afterAll(async () => {
  await sim.close();
  rmSync(files.dir, { recursive: true, force: true });
});

describe('linkedin adapter: posts', () => {
  it('posts the text as the member, escaped so LinkedIn shows all of it, and links the post', async () => {
    const text = 'Launch (v2) #release @team [beta] <now> *bold* _it_ ~x~ {a|b} back\\slash';
    const result = await adapter.publish(part(text));
    const post = sim.publishing.posts.at(-1);
    expect(post).toMatchObject({ author, shownText: text, visibility: 'PUBLIC', isReshareDisabledByAuthor: false });
    expect(post?.commentary).toBe(
      'Launch \\(v2\\) \\#release \\@team \\[beta\\] \\<now\\> \\*bold\\* \\_it\\_ \\~x\\~ \\{a\\|b\\} back\\\\slash',
    );
    const releaseURL = `https://www.linkedin.com/feed/update/${post?.id ?? ''}`;
    expect(result).toEqual({ releaseId: post?.id, releaseURL });
    const sent = sim.received.find((request) => request.method === 'POST' && request.path === '/rest/posts');
    expect(sent?.headers['linkedin-version']).toMatch(/^\d{6}$/);
    expect(sent?.headers['x-restli-protocol-version']).toBe('2.0.0');
    expect(JSON.parse(sent?.text ?? '{}')).toMatchObject({
      lifecycleState: 'PUBLISHED',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
    });
  });

  it('applies the visibility and reshare settings', async () => {
    const settings = { visibility: 'CONNECTIONS', isReshareDisabledByAuthor: true };
    await adapter.publish(part('Only for connections', { settings }));
    expect(postNamed('Only for connections')[0])
      .toMatchObject({ visibility: 'CONNECTIONS', isReshareDisabledByAuthor: true });
  });

  it('uploads an image through the Images API and attaches it with its alt text', async () => {
    const checkpoint = memoryCheckpoint();
    const media = [fileMedia(files.png, 'image/png', 'A test card')];
    await adapter.publish(part('With a picture', { media, checkpoint }));
    const [post] = postNamed('With a picture');
    expect(post?.content).toMatchObject({ kind: 'image', altTexts: ['A test card'] });
    const image = sim.publishing.assets.find((asset) => asset.urn === post?.content?.ids[0]);
    expect(image).toMatchObject({ kind: 'image', owner: author, status: 'AVAILABLE' });
    // The URN is saved before the bytes go, and marked uploaded after.
    expect(checkpoint.saves.slice(0, 2)).toEqual([{ image0: image?.urn }, { image0Uploaded: 'yes' }]);
  });

  it('sends several images as a multi-image post', async () => {
    const media = [
      fileMedia(files.png, 'image/png'), fileMedia(files.jpeg, 'image/jpeg'), fileMedia(files.gif, 'image/gif'),
    ];
    await adapter.publish(part('Three pictures', { media }));
    const [post] = postNamed('Three pictures');
    expect(post?.content?.kind).toBe('multiImage');
    expect(post?.content?.ids).toHaveLength(3);
  });

  it('sends images as one PDF document when the carousel setting asks for it', async () => {
    const media = [fileMedia(files.jpeg, 'image/jpeg'), fileMedia(files.png, 'image/png')];
    await adapter.publish(part('A carousel', { media, settings: { carousel: true } }));
    const [post] = postNamed('A carousel');
    expect(post?.content?.kind).toBe('document');
    const isPdf = (bytes: Buffer) => bytes.subarray(0, 5).toString() === '%PDF-';
    const upload = sim.received.filter((request) => request.method === 'PUT' && isPdf(request.raw)).at(-1);
    const pdf = upload?.text ?? '';
    expect(pdf).toContain('/Count 2');
    expect(pdf).toContain('/Filter /DCTDecode');
    expect(pdf).toContain('/Filter /FlateDecode');
    const xrefAt = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(pdf)?.[1]);
    expect(upload?.raw.subarray(xrefAt, xrefAt + 4).toString()).toBe('xref');
  });

  it('refuses a carousel image it cannot make a page of', async () => {
    const media = [fileMedia(files.jpeg, 'image/jpeg'), fileMedia(files.gif, 'image/gif')];
    const error = await platformFailure(adapter.publish(part('GIF carousel', { media, settings: { carousel: true } })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('a LinkedIn carousel cannot show image.gif');
  });

  it('uploads a video in LinkedIn\'s parts, finalizes it with their ETags and waits until available', async () => {
    const checkpoint = memoryCheckpoint();
    await adapter.publish(part('With a video', { media: [fileMedia(files.mp4, 'video/mp4')], checkpoint }));
    const [post] = postNamed('With a video');
    const video = sim.publishing.assets.find((asset) => asset.urn === post?.content?.ids[0]);
    expect(video?.kind).toBe('video');
    expect(video?.parts.length).toBeGreaterThan(1);
    expect(video?.status).toBe('AVAILABLE');
    expect(checkpoint.values).toMatchObject({ video0: video?.urn, video0Uploaded: 'yes' });
  });

  it('comments on the post as the member', async () => {
    const root = await adapter.publish(part('Post with a comment'));
    const reply = await adapter.comment({ ...part('First comment (details)'), parentReleaseId: root.releaseId });
    const comment = sim.publishing.comments.at(-1);
    expect(comment).toMatchObject({ actor: author, object: root.releaseId, text: 'First comment \\(details\\)' });
    expect(reply.releaseId).toBe(comment?.urn);
    expect(reply.releaseURL).toBe(`${root.releaseURL}?commentUrn=${encodeURIComponent(comment?.urn ?? '')}`);
  });
});

describe('linkedin adapter: exactly once', () => {
  it('reuses an image an earlier attempt uploaded instead of uploading it again', async () => {
    const checkpoint = memoryCheckpoint();
    const media = [fileMedia(files.png, 'image/png')];
    sim.publishing.failNext({ status: 503, body: { status: 503, message: 'Service unavailable' } });
    const failed = await platformFailure(adapter.publish(part('Retried picture', { media, checkpoint })));
    expect(failed.kind).toBe('retryable');
    const uploads = sim.publishing.assets.length;
    await adapter.publish(part('Retried picture', { media, checkpoint }));
    expect(sim.publishing.assets).toHaveLength(uploads);
    expect(postNamed('Retried picture')[0]?.content?.ids).toEqual([checkpoint.values.image0]);
  });

  it('takes the post LinkedIn calls a duplicate as the lost attempt\'s (member posts are unreadable)', async () => {
    const checkpoint = memoryCheckpoint();
    sim.publishing.failNext({ loseResponse: true });
    expect((await platformFailure(adapter.publish(part('Lost answer', { checkpoint })))).kind).toBe('retryable');
    expect(checkpoint.values.postSentAt).toBeDefined();
    const again = await adapter.publish(part('Lost answer', { checkpoint }));
    expect(postNamed('Lost answer')).toHaveLength(1);
    expect(again.releaseId).toBe(postNamed('Lost answer')[0]?.id);
    const finder = sim.received.filter((request) => request.method === 'GET' && request.path === '/rest/posts').at(-1);
    expect(finder?.query.get('author')).toBe(author);
  });

  it('sets aside a post without text whose answer was lost: nothing could tell a repeat', async () => {
    const checkpoint = memoryCheckpoint();
    const media = [fileMedia(files.jpeg, 'image/jpeg')];
    sim.publishing.failNext({ loseResponse: true });
    await platformFailure(adapter.publish(part('', { media, checkpoint })));
    const before = sim.publishing.posts.length;
    const error = await platformFailure(adapter.publish(part('', { media, checkpoint })));
    expect(error.kind).toBe('unconfirmed');
    expect(sim.publishing.posts).toHaveLength(before);
  });

  it('sets aside a comment whose answer was lost, since the member\'s comments cannot be read', async () => {
    const root = await adapter.publish(part('Post whose comment is lost'));
    const comment = { ...part('Lost comment'), parentReleaseId: root.releaseId };
    sim.publishing.failNext({ loseResponse: true });
    await platformFailure(adapter.comment(comment));
    const error = await platformFailure(adapter.comment(comment));
    expect(error.kind).toBe('unconfirmed');
    expect(sim.publishing.comments.filter((item) => item.text === 'Lost comment')).toHaveLength(1);
  });
});

describe('linkedin adapter: errors', () => {
  it('refuses a repeated text with LinkedIn\'s duplicate message, as permanent', async () => {
    await adapter.publish(part('Said twice'));
    const error = await platformFailure(adapter.publish(part('Said twice')));
    expect(error.kind).toBe('permanent');
    expect(error.httpStatus).toBe(422);
    expect(error.message).toMatch(/^LinkedIn: Content is a duplicate of urn:li:share:\d+ \(DUPLICATE_POST\)$/);
  });

  it('asks for a refresh when LinkedIn refuses the token', async () => {
    const stale = { ...channel, accessToken: 'expired-token' };
    const error = await platformFailure(adapter.publish(part('Stale token', { channel: stale })));
    const message = 'LinkedIn: Invalid access token (INVALID_ACCESS_TOKEN)';
    expect(error).toMatchObject({ kind: 'refresh_token', httpStatus: 401, message });
  });

  it('flags the channel on 403 ACCESS_DENIED', async () => {
    sim.publishing.failNext({
      status: 403,
      body: {
        status: 403, serviceErrorCode: 100, code: 'ACCESS_DENIED',
        message: 'Not enough permissions to access: partnerApiPostsExternal.CREATE.20260101',
      },
    });
    const error = await platformFailure(adapter.publish(part('No permission')));
    expect(error.kind).toBe('disconnected');
    expect(error.message).toContain('Not enough permissions');
  });

  it('waits until LinkedIn\'s quotas reset at midnight UTC on a 429, which comes without a reset', async () => {
    const message = 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.';
    sim.publishing.failNext({ status: 429, body: { status: 429, message } });
    const before = untilUtcMidnight(Date.now());
    const error = await platformFailure(adapter.publish(part('Throttled')));
    expect(error.kind).toBe('retryable');
    expect(error.retryAfterMs).toBeLessThanOrEqual(Math.max(60_000, before));
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(Math.min(60_000, before) - 5_000);
  });

  it('retries when LinkedIn fails with a 5xx', async () => {
    sim.publishing.failNext({ status: 500, body: { status: 500, message: 'Internal Server Error' } });
    expect((await platformFailure(adapter.publish(part('Server error')))).kind).toBe('retryable');
  });

  it('refuses a video that LinkedIn could not process', async () => {
    const notVideo = fileMedia(files.png, 'video/mp4');
    const error = await platformFailure(adapter.publish(part('Broken video', { media: [notVideo] })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('PROCESSING_FAILED');
    expect(postNamed('Broken video')).toEqual([]);
  });
});

describe('linkedin adapter: reading', () => {
  it('cannot list a member\'s posts without r_member_social, and says so', async () => {
    const error = await platformFailure(adapter.recentContent(channel));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('r_member_social');
  });

  it('has no analytics and no tools for members', () => {
    expect(adapter.analytics).toBeUndefined();
    expect(adapter.tools).toEqual({});
  });
});
