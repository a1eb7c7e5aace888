import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLemmySimulator, type LemmySimulator } from '../simulators/lemmy/lemmy-simulator.ts';
import { alice, communities, seedInstance } from '../simulators/lemmy/lemmy-test-channel.ts';
import { organizationWithCredentialChannel } from '../support/credential-channel.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { makeSmallMedia } from '../support/small-media.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { throttleTestSettings } from '../support/throttle-test-settings.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';

const media = makeSmallMedia();

/**
 * Lemmy posts from POST /posts through the queue and the publish worker to the Lemmy simulator,
 * on a channel connected the way the dashboard's form connects it (the user's instance, username
 * and password; SPS keeps the session only). Lemmy has no idempotency key: these tests count the
 * posts the simulated instance holds after answers were lost.
 */
describe('publishing to Lemmy through the whole stack', () => {
  let lemmy: LemmySimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let organizations = 0;

  beforeAll(async () => {
    lemmy = await startLemmySimulator();
    seedInstance(lemmy);
    ctx = await createTestContext(throttleTestSettings);
    stack = await startStack(ctx);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await lemmy.close();
    media.remove();
  });

  /** An organization whose user connected Alice's account on the simulated instance. */
  async function organization(): Promise<{ apiKey: string; channelId: string }> {
    organizations += 1;
    const values = { instanceUrl: lemmy.url, username: alice.name, password: alice.password };
    return organizationWithCredentialChannel(ctx, 'lemmy', values, `Lemmy org ${String(organizations)}`);
  }

  const titled = (name: string, communityId: number = communities.technology) => ({ community_id: communityId, name });
  const postsNamed = (name: string) => lemmy.state.posts.filter((post) => post.name === name);

  it('publishes a post with its image, then the later parts as a chain of comments', async () => {
    const org = await organization();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const postId = await publishNow(stack.baseUrl, org, [
      { content: 'Lemmy e2e body', image: [image] }, 'First comment', 'Second comment',
    ], titled('Lemmy e2e post'));
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => [part.state, part.error ?? null])).toEqual([
      ['PUBLISHED', null], ['PUBLISHED', null], ['PUBLISHED', null],
    ]);

    const [post] = postsNamed('Lemmy e2e post');
    const uploaded = lemmy.state.images.at(-1);
    expect(uploaded?.bytes.equals(readFileSync(media.png))).toBe(true);
    expect(post).toMatchObject({
      communityId: communities.technology, creatorId: alice.id, body: 'Lemmy e2e body',
      url: `${lemmy.url}/pictrs/image/${uploaded?.file ?? ''}`,
    });
    const [first, second] = lemmy.state.comments.filter((comment) => comment.postId === post?.id);
    expect(first).toMatchObject({ content: 'First comment', path: `0.${String(first?.id)}` });
    expect(second).toMatchObject({ content: 'Second comment', path: `0.${String(first?.id)}.${String(second?.id)}` });
    expect(parts.map((part) => part.releaseId)).toEqual([
      String(post?.id), `${String(post?.id)}_${String(first?.id)}`, `${String(post?.id)}_${String(second?.id)}`,
    ]);
    expect(parts[0]?.releaseURL).toBe(`${lemmy.url}/post/${String(post?.id)}`);
    expect(parts[2]?.releaseURL).toBe(`${lemmy.url}/comment/${String(second?.id)}`);
  });

  it('posts once when Lemmy made the post and its answer was lost: the retry finds it', async () => {
    const org = await organization();
    const lost = lemmy.stats.lostAnswers;
    lemmy.failNext('POST /api/v3/post', 'lose');
    const text = ['Sent before the connection broke'];
    const postId = await publishNow(stack.baseUrl, org, text, titled('Lost answer e2e'));
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    expect(lemmy.stats.lostAnswers).toBe(lost + 1);

    const made = postsNamed('Lost answer e2e');
    expect(made).toHaveLength(1);
    expect(root?.releaseId).toBe(String(made[0]?.id));
    const sends = lemmy.requestsTo('POST /api/v3/post').filter((request) => request.text.includes('Lost answer e2e'));
    expect(sends).toHaveLength(1);
    expect(root?.checkpoint).toMatchObject({ sentAt: expect.any(String) as unknown });
  });

  it('waits for the instance\'s post limit to refill without spending an attempt', async () => {
    const org = await organization();
    // One post per second, just spent: the next waits a second for its token.
    lemmy.rateLimits.set('post', { count: 1, perSecond: 1 });
    lemmy.rateLimits.drain('post');
    const postId = await publishNow(stack.baseUrl, org, ['After the refill'], titled('Throttled e2e'));
    const sent = () => lemmy.requestsTo('POST /api/v3/post')
      .filter((request) => request.text.includes('Throttled e2e'));
    const firstTry = await waitFor(() => sent()[0]?.receivedAt, { what: 'the first try' });
    const [root] = await settledParts(ctx.db, postId);
    lemmy.rateLimits.set('post', { count: 1000, perSecond: 60 });

    expect(root?.state).toBe('PUBLISHED');
    expect(sent()).toHaveLength(2);
    // Backoff alone would have retried after 20 ms; the instance's bucket refills one token a second.
    expect((sent()[1]?.receivedAt ?? 0) - firstTry).toBeGreaterThanOrEqual(950);
    expect(postsNamed('Throttled e2e')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails with Lemmy\'s reason when the community refuses the account, and keeps the channel', async () => {
    const org = await organization();
    const postId = await publishNow(stack.baseUrl, org, ['Not welcome'], titled('Banned e2e', communities.banned));
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Lemmy: the account is banned from this community (banned_from_community)');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(false);
    expect(postsNamed('Banned e2e')).toHaveLength(0);
    const job = await finishedPublishJob(stack.publishQueue, postId);
    expect(job.attemptsMade).toBe(1);
  });

  // Last: logging out ends every session the instance gave Alice.
  it('flags the channel when the instance no longer accepts the session', async () => {
    const org = await organization();
    lemmy.logOut(alice.name);
    const postId = await publishNow(stack.baseUrl, org, ['After logging out'], titled('Logged out e2e'));
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toContain('connect the channel again (not_logged_in)');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(postsNamed('Logged out e2e')).toHaveLength(0);
  });
});
