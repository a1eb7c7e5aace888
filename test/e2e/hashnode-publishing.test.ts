import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startHashnodeSimulator, unauthenticatedMessage, type RunningHashnodeSimulator, type SimulatedHashnodeUser,
} from '../simulators/hashnode/hashnode-simulator.ts';
import { proPlanMessage } from '../simulators/hashnode/hashnode-world.ts';
import { organizationWithCredentialChannel } from '../support/credential-channel.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { expectImageRefusedAsPrivate } from '../support/media-not-public.ts';
import { publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { makeSmallMedia } from '../support/small-media.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { throttleTestSettings } from '../support/throttle-test-settings.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';

const media = makeSmallMedia();
const ada: SimulatedHashnodeUser = {
  id: '65a1f0c2e4b0a1b2c3d4e5f6', username: 'ada', name: 'Ada Lovelace', profilePicture: null,
  email: 'ada@example.com', tokens: ['ada-token'],
};
const blog = '64a1b2c3d4e5f60718293a4b';
const free = '64a1b2c3d4e5f60718293a4c';

/**
 * Hashnode posts from POST /posts through the queue and the publish worker to the GraphQL
 * simulator, on channels connected the way the dashboard's form connects them (a personal access
 * token). Hashnode takes no idempotency key: these tests count the posts the simulated
 * publication holds after an answer was lost.
 */
describe('publishing to Hashnode through the whole stack', () => {
  let hashnode: RunningHashnodeSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let organizations = 0;

  beforeAll(async () => {
    hashnode = await startHashnodeSimulator([ada], {
      publications: [
        { id: blog, title: 'Ada writes', url: 'https://ada.hashnode.dev', pro: true, members: { [ada.id]: 'OWNER' } },
        { id: free, title: 'Free', url: 'https://free.hashnode.dev', pro: false, members: { [ada.id]: 'OWNER' } },
      ],
    });
    ctx = await createTestContext({
      HASHNODE_API_URL: hashnode.url,
      ...throttleTestSettings,
    });
    stack = await startStack(ctx);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await hashnode.close();
    media.remove();
  });

  async function organization(): Promise<{ apiKey: string; channelId: string }> {
    organizations += 1;
    const name = `Hashnode org ${String(organizations)}`;
    return organizationWithCredentialChannel(ctx, 'hashnode', { token: 'ada-token' }, name);
  }

  const settings = (title: string, publicationId = blog) => ({ title, publicationId, tags: [{ slug: 'sps' }] });
  const postsTitled = (title: string) => hashnode.world.posts.filter((post) => post.title === title);
  const sendsOf = (title: string) => hashnode.requestsFor('publishPost')
    .filter((request) => request.text.includes(`"title":"${title}"`));

  it('publishes a Markdown post with its uploaded image as the cover Hashnode fetches', async () => {
    const org = await organization();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const postId = await publishNow(stack.baseUrl, org, [{ content: '## Hello\n\nFrom **SPS**.', image: [image] }], {
      ...settings('E2E post'), subtitle: 'Through the stack',
    });
    const [root] = await settledParts(ctx.db, postId);
    expect([root?.state, root?.error ?? null]).toEqual(['PUBLISHED', null]);

    const [made] = postsTitled('E2E post');
    expect(made).toMatchObject({
      contentMarkdown: '## Hello\n\nFrom **SPS**.', coverImage: image.path, tags: [{ slug: 'sps', name: 'sps' }],
      input: { subtitle: 'Through the stack' },
    });
    expect(root?.releaseId).toBe(made?.id);
    expect(root?.releaseURL).toBe(made?.url);
  });

  it('publishes once when Hashnode made the post and its answer was lost: the retry finds it', async () => {
    const org = await organization();
    hashnode.failNext('publishPost', 'lose');
    const lost = hashnode.stats.lostAnswers;
    const postId = await publishNow(stack.baseUrl, org, ['Sent before the connection broke'], settings('Lost e2e'));
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('PUBLISHED');
    expect(hashnode.stats.lostAnswers).toBe(lost + 1);
    expect(postsTitled('Lost e2e')).toHaveLength(1);
    expect(sendsOf('Lost e2e')).toHaveLength(1);
    expect(root?.releaseId).toBe(postsTitled('Lost e2e')[0]?.id);
    // The lost answer spent one attempt; the second found the post instead of sending.
    expect((await finishedPublishJob(stack.publishQueue, postId)).attemptsMade).toBe(2);
  });

  it('waits as long as Hashnode\'s throttling answer says without spending an attempt', async () => {
    const org = await organization();
    hashnode.failNext('publishPost', { throttle: 1 });
    const postId = await publishNow(stack.baseUrl, org, ['After the wait'], settings('Throttled e2e'));
    const firstTry = await waitFor(() => sendsOf('Throttled e2e')[0]?.receivedAt, { what: 'the first try' });
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('PUBLISHED');
    expect(sendsOf('Throttled e2e')).toHaveLength(2);
    expect((sendsOf('Throttled e2e')[1]?.receivedAt ?? 0) - firstTry).toBeGreaterThanOrEqual(950);
    expect(postsTitled('Throttled e2e')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails with Hashnode\'s message when the publication is not on Pro, and keeps the channel', async () => {
    const org = await organization();
    const postId = await publishNow(stack.baseUrl, org, ['Needs Pro'], settings('Not pro e2e', free));
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe(proPlanMessage);
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(false);
    expect((await finishedPublishJob(stack.publishQueue, postId)).attemptsMade).toBe(1);
  });

  // Last to use Ada's token: it is revoked for good.
  it('flags the channel when Hashnode answers UNAUTHENTICATED for a revoked token', async () => {
    const org = await organization();
    ada.tokens.length = 0;
    const postId = await publishNow(stack.baseUrl, org, ['After revoking'], settings('Revoked e2e'));
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe(unauthenticatedMessage);
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(postsTitled('Revoked e2e')).toHaveLength(0);
  });

  it('refuses at POST /posts an image Hashnode could not fetch from a private address', async () => {
    await expectImageRefusedAsPrivate('hashnode', 'Hashnode', settings('Private'));
  });
});
