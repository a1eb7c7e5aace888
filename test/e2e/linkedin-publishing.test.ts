import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  finishAuthorization, finishPick, startConnect, type ConnectDeps,
} from '../../shared/domain/channels/connect-channel.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import { PlatformApps } from '../../shared/platforms/platform-apps.ts';
import type { PostRemovalView } from '../../shared/domain/removal/removal-view.ts';
import { startLinkedinPageSimulator } from '../simulators/linkedin-page/linkedin-page-simulator.ts';
import { startLinkedinSimulator, type LinkedinSimulator } from '../simulators/linkedin/linkedin-simulator.ts';
import { api } from '../support/fixtures.ts';
import { settledParts } from '../support/publish-now.ts';
import { deleteOnPlatform, removalDone } from '../support/remove-on-platform.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { makeTestMedia } from '../support/test-media.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';
import { synthesizedMedia } from '../support/synthesized-media.ts';

const frontendUrl = 'https://sps.example';
const ada = {
  sub: 'yrZCpj2Z12', name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace',
  picture: 'https://media.licdn.com/ada.jpg', email: 'ada@example.org',
};
const member = `urn:li:person:${ada.sub}`;
const page = 'urn:li:organization:1002';
/** How long a 429 from LinkedIn (which names no reset) delays the job here: the operator's cap. */
const maxRetryAfterMs = 1_500;

interface Org {
  apiKey: string;
  channelId: string;
}


/**
 * LinkedIn member and Page posts from POST /posts through the queue and the publish worker to the
 * LinkedIn simulators, on channels connected through the rooms' OAuth flows (consent, callback,
 * picker). LinkedIn has no idempotency key: these tests count the posts the simulators hold.
 */
describe('publishing to LinkedIn through the whole stack', () => {
  const files = makeTestMedia();
  // Rules take videos of 3 seconds and 75 KB or more; the shared test clip is shorter.
  const video = path.join(files.dir, 'linkedin.mp4');
  let linkedin: LinkedinSimulator;
  let linkedinPage: LinkedinSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let deps: ConnectDeps;
  let organizations = 0;

  beforeAll(async () => {
    synthesizedMedia([
      '-f', 'lavfi', '-i', 'testsrc=size=640x480:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '4',
      '-c:v', 'libx264', '-profile:v', 'main', '-pix_fmt', 'yuv420p', '-b:v', '400k', '-c:a', 'aac', '-shortest',
    ], video);
    linkedin = await startLinkedinSimulator();
    linkedinPage = await startLinkedinPageSimulator();
    for (const sim of [linkedin, linkedinPage]) {
      sim.addMember(ada);
      sim.authority.consentingUser = ada.sub;
      sim.publishing.videoPartBytes = 32 * 1024;
      sim.publishing.videoProcessingReads = 0;
    }
    const admin = [{ sub: ada.sub, role: 'ADMINISTRATOR' as const, state: 'APPROVED' as const }];
    linkedinPage.addOrganization({ id: 1001, localizedName: 'Engines', vanityName: 'engines', roles: admin });
    linkedinPage.addOrganization({ id: 1002, localizedName: 'Difference', vanityName: 'difference', roles: admin });
    ctx = await createTestContext({
      ...oauthSimulatorSettings('linkedin', linkedin),
      ...oauthSimulatorSettings('linkedin-page', linkedinPage),
      FRONTEND_URL: frontendUrl,
      PUBLISH_ATTEMPTS: '2',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: String(maxRetryAfterMs),
    });
    stack = await startStack(ctx);
    const platforms = new PlatformApps(ctx.env, { timeoutMs: 5_000, userHosts: connectionPolicyFor(true) });
    deps = { db: ctx.db, secrets: ctx.secrets, caches: stack.caches, now: () => new Date(), platforms, frontendUrl };
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await linkedin.close();
    await linkedinPage.close();
    rmSync(files.dir, { recursive: true, force: true });
  });

  /** A new organization whose channel was connected through the room's consent, callback and picker. */
  async function connected(provider: 'linkedin' | 'linkedin-page'): Promise<Org> {
    organizations += 1;
    const org = await createOrganization(ctx.db, ctx.secrets, { name: `Org ${String(organizations)}` });
    const { organizationId } = org;
    const request = { organizationId, provider, refreshChannelId: null, serverUrl: null, customer: null };
    const { url } = await startConnect(deps, request);
    const consent = await fetch(url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(`${frontendUrl}/channels/callback/${provider}`);
    const state = back.searchParams.get('state') ?? '';
    const code = back.searchParams.get('code');
    const callback = { provider, state, code, error: null, errorDescription: null, organizationId };
    let outcome = await finishAuthorization(deps, callback);
    if (outcome.kind === 'pick') outcome = await finishPick(deps, { provider, key: outcome.key, organizationId }, page);
    if (outcome.kind !== 'saved') throw new Error('the channel was not saved');
    return { apiKey: org.apiKey, channelId: outcome.id };
  }

  async function upload(org: Org, file: string, name: string): Promise<{ id: string; path: string }> {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(file)]), name);
    const response = await fetch(`${stack.baseUrl}/api/public/v1/upload`, {
      method: 'POST', body: form, headers: { Authorization: org.apiKey },
    });
    expect(response.status).toBe(201);
    const { id, path: stored } = await response.json() as { id: string; path: string };
    return { id, path: stored };
  }

  type Part = { content: string; image?: { id: string; path: string; alt?: string }[] };

  async function publish(org: Org, parts: Part[], settings: Record<string, unknown> = {}): Promise<string> {
    const response = await api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: org.channelId }, settings, value: parts }] },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return (response.body as { postId: string }[])[0]?.postId ?? '';
  }

  const postsShowing = (sim: LinkedinSimulator, text: string) =>
    sim.publishing.posts.filter((post) => post.shownText === text);

  it('publishes a member post with an image, and the next part as a comment on it', async () => {
    const org = await connected('linkedin');
    const image = await upload(org, files.png, 'card.png');
    const text = 'Our results (Q3) are in #growth';
    const postId = await publish(org, [
      { content: text, image: [{ ...image, alt: 'A chart' }] },
      { content: 'Details in the report' },
    ]);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);

    const [post] = postsShowing(linkedin, text);
    expect(post).toMatchObject({ author: member, content: { kind: 'image', altTexts: ['A chart'] } });
    const uploaded = linkedin.publishing.assets.find((asset) => asset.urn === post?.content?.ids[0]);
    expect(uploaded?.size).toBe(readFileSync(files.png).length);
    const comment = linkedin.publishing.comments.find((item) => item.object === post?.id);
    expect(comment).toMatchObject({ actor: member, text: 'Details in the report' });
    expect(parts.map((part) => part.releaseId)).toEqual([post?.id, comment?.urn]);
    expect(parts[0]?.releaseURL).toBe(`https://www.linkedin.com/feed/update/${post?.id ?? ''}`);
  });

  it('publishes a member post with a video uploaded in parts', async () => {
    const org = await connected('linkedin');
    const clip = await upload(org, video, 'clip.mp4');
    const postId = await publish(org, [{ content: 'Watch this', image: [clip] }], { visibility: 'CONNECTIONS' });
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state, root?.error ?? '').toBe('PUBLISHED');
    const [post] = postsShowing(linkedin, 'Watch this');
    expect(post).toMatchObject({ visibility: 'CONNECTIONS', content: { kind: 'video' } });
    const asset = linkedin.publishing.assets.find((item) => item.urn === post?.content?.ids[0]);
    expect(asset?.parts.length).toBeGreaterThan(1);
    expect(asset?.size).toBe(readFileSync(video).length);
  });

  it('publishes as the picked Page, with its comment by the Page', async () => {
    const org = await connected('linkedin-page');
    const image = await upload(org, files.jpeg, 'photo.jpg');
    const postId = await publish(org, [{ content: 'Page update', image: [image] }, { content: 'Page comment' }]);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    const [post] = postsShowing(linkedinPage, 'Page update');
    expect(post).toMatchObject({ author: page, visibility: 'PUBLIC', content: { kind: 'image' } });
    expect(linkedinPage.publishing.comments.find((item) => item.object === post?.id)?.actor).toBe(page);
  });

  it('posts once when LinkedIn accepted a post and its answer was lost: the retry finds it', async () => {
    const org = await connected('linkedin-page');
    const lost = linkedinPage.publishing.lostResponses;
    linkedinPage.publishing.failNext({ loseResponse: true });
    const postId = await publish(org, [{ content: 'Lost answer' }]);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    expect(linkedinPage.publishing.lostResponses).toBe(lost + 1);
    const made = postsShowing(linkedinPage, 'Lost answer');
    expect(made).toHaveLength(1);
    expect(root?.releaseId).toBe(made[0]?.id);
  });

  it('waits after a 429 without spending an attempt, and does not upload the image again', async () => {
    const org = await connected('linkedin');
    const image = await upload(org, files.jpeg, 'throttled.jpg');
    // With two attempts, the 503 after the 429 could only be retried if the 429 spent none.
    linkedin.publishing.failNext(
      { status: 429, body: { status: 429, message: 'Resource level throttle MEMBER DAY limit is reached.' } },
      { status: 503, body: { status: 503, message: 'Service Unavailable' } },
    );
    const assetsBefore = linkedin.publishing.assets.length;
    const postId = await publish(org, [{ content: 'Throttled post', image: [image] }]);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state, root?.error ?? '').toBe('PUBLISHED');
    expect(postsShowing(linkedin, 'Throttled post')).toHaveLength(1);
    expect(linkedin.publishing.assets).toHaveLength(assetsBefore + 1);
    const creates = linkedin.received.filter((request) => request.method === 'POST' && request.path === '/rest/posts');
    // The throttled create, the refused one after the wait, and the one that went through.
    const [throttled, afterWait] = creates.slice(-3).map((request) => request.receivedAt);
    expect((afterWait ?? 0) - (throttled ?? 0)).toBeGreaterThanOrEqual(maxRetryAfterMs - 100);
  });

  /** DELETE ?onPlatform=true, then the post's removal once the removal worker settled every part. */
  async function deleteAndSettle(org: Org, postId: string): Promise<PostRemovalView> {
    await deleteOnPlatform(stack.baseUrl, org.apiKey, `posts/${postId}`);
    return (await removalDone(stack.baseUrl, org.apiKey, postId)).removal;
  }

  it('deletes a thread on the platform with one call: the comment part settles as its post went', async () => {
    const org = await connected('linkedin');
    const postId = await publish(org, [{ content: 'Going soon' }, { content: 'Going with it' }]);
    const [root] = await settledParts(ctx.db, postId);
    const deletesBefore = linkedin.received.filter((request) => request.method === 'DELETE').length;

    const removal = await deleteAndSettle(org, postId);
    expect(removal.parts.map((part) => [part.position, part.state])).toEqual([[0, 'removed'], [1, 'removed']]);
    const deletes = linkedin.received.filter((request) => request.method === 'DELETE').slice(deletesBefore);
    const postPath = `/rest/posts/${encodeURIComponent(root?.releaseId ?? '')}`;
    expect(deletes.map((request) => request.path)).toEqual([postPath]);
    expect(postsShowing(linkedin, 'Going soon')).toEqual([]);
    expect(linkedin.publishing.comments.some((comment) => comment.object === root?.releaseId)).toBe(false);
  });

  it('keeps a comment part failed, not removed, when LinkedIn refuses its post\'s deletion', async () => {
    const org = await connected('linkedin');
    const postId = await publish(org, [{ content: 'Staying up' }, { content: 'Staying with it' }]);
    await settledParts(ctx.db, postId);
    // The member removed the app: the post's DELETE is refused, so its comment stays up too.
    linkedin.authority.revokeAll();

    const removal = await deleteAndSettle(org, postId);
    expect(removal.parts.map((part) => [part.position, part.state])).toEqual([[0, 'failed'], [1, 'failed']]);
    const [first, comment] = removal.parts;
    expect(first?.category).toBe('disconnected');
    expect(comment).toMatchObject({ category: first?.category, message: first?.message });
    expect(comment?.reason).toMatch(/stays up with the first part/);
    expect(postsShowing(linkedin, 'Staying up')).toHaveLength(1);
  });

  it('flags the channel when LinkedIn no longer takes its token', async () => {
    const memberOrg = await connected('linkedin');
    const pageOrg = await connected('linkedin-page');
    // The member removed the app: every token (and a Page app's refresh token) stops working.
    linkedin.authority.revokeAll();
    linkedinPage.authority.revokeAll();
    for (const [org, text] of [[memberOrg, 'Revoked member'], [pageOrg, 'Revoked page']] as const) {
      const [root] = await settledParts(ctx.db, await publish(org, [{ content: text }]));
      expect(root?.state).toBe('ERROR');
      const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
      expect(channel?.refreshNeeded).toBe(true);
    }
    expect(postsShowing(linkedin, 'Revoked member')).toEqual([]);
    expect(postsShowing(linkedinPage, 'Revoked page')).toEqual([]);
  });
});
