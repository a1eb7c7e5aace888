import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startMediumSimulator, type RunningMediumSimulator, type SimulatedMediumUser,
} from '../simulators/medium/medium-simulator.ts';
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
const ada: SimulatedMediumUser = {
  id: '5303d74c64f66366f00cb9b2a94f3251bf5', username: 'ada', name: 'Ada Lovelace',
  imageUrl: 'https://images.medium.com/ada.png', tokens: ['ada-token'],
};
const guestDesk = 'c99';

/**
 * Medium stories from POST /posts through the queue and the publish worker to the Medium
 * simulator, on channels connected the way the dashboard's form connects them (an integration
 * token). Medium takes no idempotency key and lists no stories: after a lost answer the part is
 * set aside as unconfirmed, and the simulated profile holds the one story the first send made.
 */
describe('publishing to Medium through the whole stack', () => {
  let medium: RunningMediumSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let organizations = 0;

  beforeAll(async () => {
    medium = await startMediumSimulator([ada], [
      { id: guestDesk, name: 'Guest Desk', url: 'https://medium.com/guest', roles: { [ada.id]: 'writer' } },
    ]);
    ctx = await createTestContext({
      MEDIUM_API_URL: medium.apiUrl,
      ...throttleTestSettings,
    });
    stack = await startStack(ctx);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await medium.close();
    media.remove();
  });

  async function organization(): Promise<{ apiKey: string; channelId: string }> {
    organizations += 1;
    const name = `Medium org ${String(organizations)}`;
    return organizationWithCredentialChannel(ctx, 'medium', { integrationToken: 'ada-token' }, name);
  }

  const ownPosts = `POST /v1/users/${ada.id}/posts`;
  const storiesTitled = (title: string) => medium.stories.filter((story) => story.title === title);
  const sendsOf = (title: string) => medium.requestsTo(ownPosts)
    .filter((request) => request.text.includes(`"title":"${title}"`));

  it('publishes a Markdown story with its uploaded image linked in the text for Medium to fetch', async () => {
    const org = await organization();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const parts = [{ content: '# E2E story\n\nFrom **SPS**.', image: [image] }];
    const postId = await publishNow(stack.baseUrl, org, parts, {
      title: 'E2E story', tags: ['sps'], canonicalUrl: 'https://blog.example/e2e',
    });
    const [root] = await settledParts(ctx.db, postId);
    expect([root?.state, root?.error ?? null]).toEqual(['PUBLISHED', null]);

    const [story] = storiesTitled('E2E story');
    expect(story).toMatchObject({
      content: `# E2E story\n\nFrom **SPS**.\n\n![](${image.path})`, contentFormat: 'markdown', tags: ['sps'],
      canonicalUrl: 'https://blog.example/e2e', publishStatus: 'public',
    });
    expect(root?.releaseId).toBe(story?.id);
    expect(root?.releaseURL).toBe(story?.url);
  });

  it('sets the part aside as unconfirmed after a lost answer instead of publishing a second story', async () => {
    const org = await organization();
    medium.failNext(ownPosts, 'lose');
    const postId = await publishNow(stack.baseUrl, org, ['Sent before the connection broke'], { title: 'Lost e2e' });
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('ERROR');
    expect(root?.releaseId).toBe('missing');
    expect(root?.error).toMatch(/^unconfirmed: Medium may have published the story/);
    expect(storiesTitled('Lost e2e')).toHaveLength(1);
    expect(sendsOf('Lost e2e')).toHaveLength(1);
    expect((await finishedPublishJob(stack.publishQueue, postId)).attemptsMade).toBe(2);
  });

  it('waits for the daily cap\'s reset without spending an attempt', async () => {
    const org = await organization();
    medium.limits.perDay = 0;
    medium.limits.retryAfterSeconds = 1;
    const postId = await publishNow(stack.baseUrl, org, ['After the reset'], { title: 'Throttled e2e' });
    const firstTry = await waitFor(() => sendsOf('Throttled e2e')[0]?.receivedAt, { what: 'the first try' });
    medium.limits.perDay = 1000;
    medium.limits.retryAfterSeconds = null;
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('PUBLISHED');
    expect(sendsOf('Throttled e2e')).toHaveLength(2);
    expect((sendsOf('Throttled e2e')[1]?.receivedAt ?? 0) - firstTry).toBeGreaterThanOrEqual(950);
    expect(storiesTitled('Throttled e2e')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails with Medium\'s message when a writer asks for a public story, and keeps the channel', async () => {
    const org = await organization();
    const settings = { title: 'Writer e2e', publicationId: guestDesk };
    const postId = await publishNow(stack.baseUrl, org, ['Public?'], settings);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Writers can only submit drafts to this publication.');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(false);
    expect((await finishedPublishJob(stack.publishQueue, postId)).attemptsMade).toBe(1);
  });

  // Last to use Ada's token: it is revoked for good.
  it('flags the channel when Medium no longer accepts the integration token', async () => {
    const org = await organization();
    ada.tokens.length = 0;
    const postId = await publishNow(stack.baseUrl, org, ['After revoking'], { title: 'Revoked e2e' });
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Token was invalid.');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(storiesTitled('Revoked e2e')).toHaveLength(0);
  });

  it('refuses at POST /posts an image Medium could not fetch from a private address', async () => {
    await expectImageRefusedAsPrivate('medium', 'Medium', { title: 'Private' });
  });
});
