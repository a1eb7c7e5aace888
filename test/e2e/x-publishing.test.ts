import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { startXSimulator, type XSimulator } from '../simulators/x/x-simulator.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';
import { postNow, publishNow, settledParts } from '../support/publish-now.ts';
import { samplePng } from '../support/sample-media.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { makeTestMedia } from '../support/test-media.ts';
import { connectThroughConsent } from '../support/connect-through-consent.ts';
import { expectThrottleSpentNoAttempt, firstSendSeen } from '../support/throttled-publish.ts';

const ada = { id: '2244994945', name: 'Ada on X', username: 'ada', profile_image_url: 'https://pbs.twimg.com/a.jpg' };
const media = makeTestMedia();

interface Org {
  apiKey: string;
  channelId: string;
}

interface Uploaded {
  id: string;
  path: string;
}

/**
 * Publishing to X from POST /posts through the queue and the publish worker to the X simulator,
 * on a channel connected the way an API client's user connects it: `GET /social/x`, X's consent
 * page, the callback. X has no idempotency key: these tests count what the simulator holds after
 * answers were lost, to show the checkpointed media ids and the look-up before a repeated post.
 */
describe('publishing to X through the whole stack', () => {
  let sim: XSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let organizations = 0;

  beforeAll(async () => {
    sim = await startXSimulator();
    sim.addUser(ada);
    sim.authority.consentingUser = ada.id;
    sim.media.processing = { checkAfterSecs: 0, pollsUntilDone: 1, lifetimeSecs: 86_400 };
    ctx = await createTestContext({
      ...oauthSimulatorSettings('x', sim),
      PUBLISH_ATTEMPTS: '5',
      PUBLISH_BACKOFF_MS: '20',
      // A lost answer is noticed at once (the connection breaks); this bounds a stuck one.
      PLATFORM_TIMEOUT_MS: '5000',
    });
    stack = await startStack(ctx);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await sim.close();
    rmSync(media.dir, { recursive: true, force: true });
  });

  /** A new organization whose user connects Ada's X account through the public API and X's consent. */
  async function organization(): Promise<Org> {
    organizations += 1;
    const org = await createOrganization(ctx.db, ctx.secrets, { name: `X org ${String(organizations)}` });
    const channelId = await connectThroughConsent(stack.baseUrl, org.apiKey, 'x');
    return { apiKey: org.apiKey, channelId };
  }

  async function upload(org: Org, bytes: Buffer, fileName: string): Promise<Uploaded> {
    const form = new FormData();
    form.append('file', new Blob([bytes]), fileName);
    const response = await fetch(`${stack.baseUrl}/api/public/v1/upload`, {
      method: 'POST', body: form, headers: { Authorization: org.apiKey },
    });
    expect(response.status).toBe(201);
    const stored = await response.json() as Uploaded;
    // A post names its media by id and path only.
    return { id: stored.id, path: stored.path };
  }

  function postWithMedia(org: Org, value: { content: string; image?: Uploaded[] }[]) {
    return postNow(stack.baseUrl, org, value);
  }

  const madeWith = (text: string) => sim.posts.items.filter((post) => post.text === text);

  it('publishes a thread: an image on the first post, a video on the second, each a reply to the last', async () => {
    const org = await organization();
    const png = readFileSync(media.png);
    const mp4 = readFileSync(media.mp4);
    const image = await upload(org, png, 'square.png');
    const video = await upload(org, mp4, 'clip.mp4');
    const response = await postWithMedia(org, [
      { content: 'X thread 1/3', image: [image] },
      { content: 'X thread 2/3', image: [video] },
      { content: 'X thread 3/3' },
    ]);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const parts = await settledParts(ctx.db, (response.body as { postId: string }[])[0]?.postId ?? '');
    expect(parts.map((part) => [part.state, part.error ?? null])).toEqual([
      ['PUBLISHED', null], ['PUBLISHED', null], ['PUBLISHED', null],
    ]);

    const posts = sim.posts.items.filter((post) => post.text.startsWith('X thread'));
    expect(posts.map((post) => post.text)).toEqual(['X thread 1/3', 'X thread 2/3', 'X thread 3/3']);
    expect(posts.map((post) => post.replyTo)).toEqual([null, posts[0]?.id, posts[1]?.id]);
    expect(parts.map((part) => part.releaseId)).toEqual(posts.map((post) => post.id));
    expect(parts[0]?.releaseURL).toBe(`https://x.com/ada/status/${posts[0]?.id ?? ''}`);

    const attached = posts.map((post) => post.mediaIds.map((id) => sim.media.items.find((item) => item.id === id)));
    expect(attached[0]?.[0]).toMatchObject({ category: 'tweet_image', mediaType: 'image/png' });
    expect(attached[0]?.[0]?.bytes?.equals(png)).toBe(true);
    expect(attached[1]?.[0]).toMatchObject({ category: 'tweet_video', mediaType: 'video/mp4', state: 'succeeded' });
    expect(attached[1]?.[0]?.bytes?.equals(mp4)).toBe(true);
    expect(attached[2]).toEqual([]);
    expect(parts[1]?.checkpoint).toMatchObject({ media0Id: posts[1]?.mediaIds[0], media0Step: 'ready' });
  });

  it('posts once when X accepted a part and its answer was lost: the retry finds it on the account', async () => {
    const org = await organization();
    const lost = sim.lostResponses;
    // Part 1 goes through; part 2 is posted but its answer never arrives.
    sim.failNext('POST /2/tweets', 'pass', { loseResponse: true });
    const postId = await publishNow(stack.baseUrl, org, ['Lost answer 1/2', 'Lost answer 2/2']);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(sim.lostResponses).toBe(lost + 1);
    const first = madeWith('Lost answer 1/2');
    const second = madeWith('Lost answer 2/2');
    expect(second).toHaveLength(1);
    expect(second[0]?.replyTo).toBe(first[0]?.id);
    expect(parts.map((part) => part.releaseId)).toEqual([first[0]?.id, second[0]?.id]);
    const sent = sim.requestsTo('POST /2/tweets').filter((request) => request.text.includes('Lost answer 2/2'));
    expect(sent).toHaveLength(1);
  });

  it('does not upload a video again when the answer to its finalize was lost', async () => {
    const org = await organization();
    const video = await upload(org, readFileSync(media.mp4), 'again.mp4');
    const initializes = sim.requestsTo('POST /2/media/upload/initialize').length;
    sim.failNext('POST /2/media/upload/:id/finalize', { loseResponse: true });
    const response = await postWithMedia(org, [{ content: 'Video finalized once', image: [video] }]);
    const parts = await settledParts(ctx.db, (response.body as { postId: string }[])[0]?.postId ?? '');
    expect(parts[0]?.state).toBe('PUBLISHED');
    expect(sim.requestsTo('POST /2/media/upload/initialize').length).toBe(initializes + 1);
    const [made] = madeWith('Video finalized once');
    const checkpoint = z.record(z.string(), z.string()).parse(parts[0]?.checkpoint);
    expect(made?.mediaIds).toEqual([checkpoint.media0Id]);
  });

  it('waits for X\'s x-rate-limit-reset on a 429 without spending an attempt', async () => {
    const org = await organization();
    sim.failNext('POST /2/tweets', sim.rateLimited(2));
    const postId = await publishNow(stack.baseUrl, org, ['After the window reopens']);
    const sent = () => sim.requestsTo('POST /2/tweets').filter((request) => request.text.includes('After the window'));
    const firstTry = await firstSendSeen(sent);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    // Backoff would have retried after 20 ms; X's window reopens one to two seconds later.
    expect(Date.now() - firstTry).toBeGreaterThanOrEqual(900);
    expect(sent()).toHaveLength(2);
    expect(madeWith('After the window reopens')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('refuses at POST /posts an image over X\'s 5 MB, and sends nothing', async () => {
    const org = await organization();
    const big = await upload(org, samplePng(5 * 1024 * 1024 + 1), 'big.png');
    const before = sim.received.length;
    const response = await postWithMedia(org, [{ content: 'Too big', image: [big] }]);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: 'validation_failed',
      details: [{ path: 'posts.0.value', message: expect.stringContaining('X takes images up to 5 MB') as unknown }],
    });
    expect(sim.received.length).toBe(before);
  });

  // Last: revoking voids every token the simulator issued.
  it('fails the post and flags the channel once X refuses the token and its refresh', async () => {
    const org = await organization();
    sim.authority.revokeAll();
    const postId = await publishNow(stack.baseUrl, org, ['After revoking']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Value passed for the token was invalid. (invalid_request)');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(madeWith('After revoking')).toHaveLength(0);
  });
});
