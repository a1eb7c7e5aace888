import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevtoSimulator, type RunningDevtoSimulator } from '../simulators/devto/devto-simulator.ts';
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
const ada = { id: 1234, username: 'ada', name: 'Ada Lovelace', profileImage: 'https://media.dev.to/ada.png' };
const lin = {
  id: 9, username: 'lin', name: 'Lin', profileImage: 'https://media.dev.to/lin.png', apiKeys: ['lin-key'],
};

/**
 * Dev.to articles from POST /posts through the queue and the publish worker to the Forem
 * simulator, on channels connected the way the dashboard's form connects them (an API key).
 * Forem takes no idempotency key: these tests count the articles the simulated site holds after
 * an answer was lost.
 */
describe('publishing to Dev.to through the whole stack', () => {
  let devto: RunningDevtoSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let organizations = 0;

  beforeAll(async () => {
    devto = await startDevtoSimulator([
      { ...ada, apiKeys: ['ada-key'] },
      lin,
    ]);
    ctx = await createTestContext({
      DEVTO_API_URL: devto.apiUrl,
      ...throttleTestSettings,
    });
    stack = await startStack(ctx);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await devto.close();
    media.remove();
  });

  async function organization(apiKey = 'ada-key'): Promise<{ apiKey: string; channelId: string }> {
    organizations += 1;
    return organizationWithCredentialChannel(ctx, 'devto', { apiKey }, `Dev.to org ${String(organizations)}`);
  }

  const titled = (title: string) => devto.articles.filter((article) => article.title === title);
  const sendsOf = (title: string) => devto.requestsTo('POST /api/articles')
    .filter((request) => request.text.includes(`"title":"${title}"`));

  it('publishes a Markdown article with its uploaded image as the cover dev.to fetches', async () => {
    const org = await organization();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const postId = await publishNow(stack.baseUrl, org, [{ content: '## Hello\n\nFrom **SPS**.', image: [image] }], {
      title: 'E2E article', tags: ['sps', 'testing'], canonical_url: 'https://blog.example/e2e',
    });
    const [root] = await settledParts(ctx.db, postId);
    expect([root?.state, root?.error ?? null]).toEqual(['PUBLISHED', null]);

    const [made] = titled('E2E article');
    expect(made).toMatchObject({
      bodyMarkdown: '## Hello\n\nFrom **SPS**.', mainImage: image.path, tags: ['sps', 'testing'], published: true,
      canonicalUrl: 'https://blog.example/e2e',
    });
    expect(root?.releaseId).toBe(String(made?.id));
    expect(root?.releaseURL).toBe(`https://dev.to/ada/${made?.slug ?? ''}`);
  });

  it('publishes once when dev.to made the article and its answer was lost: the retry finds it', async () => {
    const org = await organization();
    devto.failNext('POST /api/articles', 'lose');
    const lost = devto.stats.lostAnswers;
    const postId = await publishNow(stack.baseUrl, org, ['Sent before the connection broke'], { title: 'Lost e2e' });
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('PUBLISHED');
    expect(devto.stats.lostAnswers).toBe(lost + 1);
    expect(titled('Lost e2e')).toHaveLength(1);
    expect(sendsOf('Lost e2e')).toHaveLength(1);
    expect(root?.releaseId).toBe(String(titled('Lost e2e')[0]?.id));
    expect(root?.checkpoint).toMatchObject({ sentAt: expect.any(String) as unknown });
    // The lost answer spent one attempt; the second found the article instead of sending.
    const job = await finishedPublishJob(stack.publishQueue, postId);
    expect(job.attemptsMade).toBe(2);
  });

  it('waits for Forem\'s article limit to reset without spending an attempt', async () => {
    const org = await organization('lin-key');
    devto.articleLimit.windowSeconds = 1;
    devto.spendArticleLimit(9);
    const postId = await publishNow(stack.baseUrl, org, ['After the reset'], { title: 'Throttled e2e' });
    const firstTry = await waitFor(() => sendsOf('Throttled e2e')[0]?.receivedAt, { what: 'the first try' });
    const [root] = await settledParts(ctx.db, postId);
    devto.articleLimit.windowSeconds = 30;

    expect(root?.state).toBe('PUBLISHED');
    expect(sendsOf('Throttled e2e')).toHaveLength(2);
    // Backoff alone would have retried after 20 ms; Forem said to wait a second.
    expect((sendsOf('Throttled e2e')[1]?.receivedAt ?? 0) - firstTry).toBeGreaterThanOrEqual(950);
    expect(titled('Throttled e2e')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails with Forem\'s own sentence when the article is refused, and keeps the channel', async () => {
    const org = await organization();
    const settings = { title: 'Taken e2e', canonical_url: 'https://blog.example/e2e' };
    const postId = await publishNow(stack.baseUrl, org, ['Same canonical address'], settings);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Canonical url has already been taken');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(false);
    expect((await finishedPublishJob(stack.publishQueue, postId)).attemptsMade).toBe(1);
  });

  // Last to use Lin: the key is revoked for good.
  it('flags the channel when dev.to no longer accepts the API key', async () => {
    const org = await organization('lin-key');
    lin.apiKeys.length = 0;
    const postId = await publishNow(stack.baseUrl, org, ['After revoking'], { title: 'Revoked e2e' });
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('unauthorized: dev.to did not accept the API key');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(titled('Revoked e2e')).toHaveLength(0);
  });

  it('refuses at POST /posts an image dev.to could not fetch from a private address', async () => {
    await expectImageRefusedAsPrivate('devto', 'Dev.to', { title: 'Private' });
  });
});
