import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { connectedChannel, fileMedia } from '../../../test/simulators/linkedin/linkedin-channels.ts';
import {
  startLinkedinPageSimulator, type LinkedinPageSimulator,
} from '../../../test/simulators/linkedin-page/linkedin-page-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { makeTestMedia } from '../../../test/support/test-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput } from '../kit/platform-adapter.ts';
import { createLinkedinPageAdapter } from './adapter.ts';
import { linkedinPageConnect } from './connect.ts';

const files = makeTestMedia();
const organization = 'urn:li:organization:1002';
const ada = {
  sub: 'ada', name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace',
  picture: 'https://media.licdn.com/ada.jpg', email: 'ada@example.org',
};

let sim: LinkedinPageSimulator;
let adapter: PlatformAdapter;
let channel: ChannelCredentials;

function part(content: string, extra: Partial<PublishInput> = {}): PublishInput {
  return {
    channel, content, media: [], settings: {}, idempotencyKey: 'unused', checkpoint: memoryCheckpoint(), ...extra,
  };
}

const postNamed = (text: string) => sim.publishing.posts.filter((post) => post.shownText === text);

beforeAll(async () => {
  sim = await startLinkedinPageSimulator();
  sim.addMember(ada);
  const admin = [{ sub: 'ada', role: 'ADMINISTRATOR' as const, state: 'APPROVED' as const }];
  sim.addOrganization({ id: 1001, localizedName: 'Analytical Engines', vanityName: 'engines', roles: admin });
  sim.addOrganization({ id: 1002, localizedName: 'Difference Ltd', vanityName: 'difference', roles: admin });
  sim.authority.consentingUser = 'ada';
  sim.publishing.videoPartBytes = 16 * 1024;
  channel = await connectedChannel(linkedinPageConnect, sim, organization);
  const app = {
    clientId: sim.clientId, clientSecret: sim.clientSecret, botToken: null,
    apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url,
  };
  const wait = { pollIntervalMs: 10, pollTimeoutMs: 2_000 };
  adapter = createLinkedinPageAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, app, wait);
});

afterAll(async () => {
  await sim.close();
  rmSync(files.dir, { recursive: true, force: true });
});

describe('linkedin-page adapter: posts', () => {
  it('posts as the organization, always publicly, with an image and a comment by the Page', async () => {
    const media = [fileMedia(files.png, 'image/png', 'Our logo')];
    const settings = { visibility: 'CONNECTIONS' };
    const root = await adapter.publish(part('Page news', { media, settings }));
    const [post] = postNamed('Page news');
    const content = { kind: 'image', altTexts: ['Our logo'] };
    expect(post).toMatchObject({ author: organization, visibility: 'PUBLIC', content });
    const image = sim.publishing.assets.find((asset) => asset.urn === post?.content?.ids[0]);
    expect(image?.owner).toBe(organization);
    expect(root.releaseURL).toBe(`https://www.linkedin.com/feed/update/${post?.id ?? ''}`);
    const reply = await adapter.comment({ ...part('More below'), parentReleaseId: root.releaseId });
    expect(sim.publishing.comments.at(-1))
      .toMatchObject({ actor: organization, object: root.releaseId, urn: reply.releaseId });
  });

  it('posts a video owned by the organization', async () => {
    await adapter.publish(part('Page video', { media: [fileMedia(files.mp4, 'video/mp4')] }));
    const [post] = postNamed('Page video');
    const video = sim.publishing.assets.find((asset) => asset.urn === post?.content?.ids[0]);
    expect(video).toMatchObject({ kind: 'video', owner: organization, status: 'AVAILABLE' });
  });
});

describe('linkedin-page adapter: exactly once', () => {
  it('finds the post a lost answer hid among the Page\'s posts instead of posting again', async () => {
    const checkpoint = memoryCheckpoint();
    sim.publishing.failNext({ loseResponse: true });
    const lost = sim.publishing.lostResponses;
    expect((await platformFailure(adapter.publish(part('Lost page post', { checkpoint })))).kind).toBe('retryable');
    expect(sim.publishing.lostResponses).toBe(lost + 1);
    const posted = sim.received.filter((request) => request.method === 'POST' && request.path === '/rest/posts').length;
    const again = await adapter.publish(part('Lost page post', { checkpoint }));
    expect(postNamed('Lost page post')).toHaveLength(1);
    expect(again.releaseId).toBe(postNamed('Lost page post')[0]?.id);
    // Found by the look-up: no second POST at all.
    const creates = sim.received.filter((request) => request.method === 'POST' && request.path === '/rest/posts');
    expect(creates).toHaveLength(posted);
    const finder = sim.received.filter((request) => request.method === 'GET' && request.path === '/rest/posts').at(-1);
    expect(finder?.headers['x-restli-method']).toBe('FINDER');
  });

  it('posts on a retry when the look-up shows the earlier attempt never reached LinkedIn', async () => {
    const checkpoint = memoryCheckpoint();
    sim.publishing.failNext({ status: 502, body: { status: 502, message: 'Bad Gateway' } });
    await platformFailure(adapter.publish(part('Never arrived', { checkpoint })));
    await adapter.publish(part('Never arrived', { checkpoint }));
    expect(postNamed('Never arrived')).toHaveLength(1);
  });

  it('finds a comment a lost answer hid among the post\'s comments', async () => {
    const root = await adapter.publish(part('Post with a lost comment'));
    const comment = { ...part('Lost page comment'), parentReleaseId: root.releaseId };
    sim.publishing.failNext({ loseResponse: true });
    await platformFailure(adapter.comment(comment));
    const again = await adapter.comment(comment);
    const made = sim.publishing.comments.filter((item) => item.text === 'Lost page comment');
    expect(made).toHaveLength(1);
    expect(again.releaseId).toBe(made[0]?.urn);
  });
});

describe('linkedin-page adapter: errors', () => {
  it('flags the channel when the member lost the Page role (403 ACCESS_DENIED)', async () => {
    const other = await connectedChannel(linkedinPageConnect, sim, 'urn:li:organization:1001');
    sim.addOrganization({ id: 1001, localizedName: 'Analytical Engines', vanityName: 'engines', roles: [] });
    const error = await platformFailure(adapter.publish(part('Role gone', { channel: other })));
    expect(error.kind).toBe('disconnected');
    expect(error.message).toMatch(/^LinkedIn: Not enough permissions to access: .* \(ACCESS_DENIED\)$/);
  });
});

describe('linkedin-page adapter: reading', () => {
  it('lists the Page\'s latest posts, newest first', async () => {
    const recent = await adapter.recentContent(channel);
    const mine = sim.publishing.posts.filter((post) => post.author === organization).reverse();
    expect(recent.map((item) => item.id)).toEqual(mine.slice(0, 20).map((post) => post.id));
    expect(recent[0]?.url).toBe(`https://www.linkedin.com/feed/update/${mine[0]?.id ?? ''}`);
  });

  it('reads the follower count and a post\'s lifetime statistics', async () => {
    sim.publishing.setFollowers(organization, 4_321);
    const root = await adapter.publish(part('Counted post'));
    sim.publishing.setShareStatistics(root.releaseId, {
      impressionCount: 900, uniqueImpressionsCount: 700, clickCount: 40, likeCount: 25, commentCount: 3,
      shareCount: 2,
    });
    expect(await adapter.analytics?.account(channel)).toEqual([{ label: 'Followers', value: 4_321 }]);
    expect(await adapter.analytics?.post(channel, root.releaseId)).toEqual([
      { label: 'Impressions', value: 900 },
      { label: 'Clicks', value: 40 },
      { label: 'Likes', value: 25 },
      { label: 'Comments', value: 3 },
      { label: 'Shares', value: 2 },
    ]);
    const asked = sim.received.filter((request) => request.path === '/rest/organizationalEntityShareStatistics').at(-1);
    expect(asked?.query.get('shares')).toBe(`List(${root.releaseId})`);
  });

  it('lists the Pages the member administers with the organizations tool', async () => {
    // Page 1001 lost Ada's role in the errors test above: only 1002 is still hers.
    const pages = await adapter.tools.organizations?.(channel, {});
    expect(pages).toEqual([
      { id: 'urn:li:organization:1002', name: 'Difference Ltd', vanityName: 'difference' },
    ]);
  });
});
