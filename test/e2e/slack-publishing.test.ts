import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DashboardClient, newAccount } from '../browser/dashboard-client.ts';
import { acme } from '../simulators/slack/slack-connected.ts';
import { startSlackSimulator, type RunningSlackSimulator } from '../simulators/slack/slack-simulator.ts';
import { api } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { makeSmallMedia, type SmallMedia } from '../support/small-media.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { expectThrottleSpentNoAttempt, firstSendSeen } from '../support/throttled-publish.ts';

const v1 = '/api/public/v1';
const general = 'C0GENERAL';
/** Slack names its reset in seconds; the job waits at most this long in these tests. */
const maxWaitMs = 1_500;

/**
 * Slack messages from POST /posts through the queue and the publish worker to the Slack
 * simulator, on a channel connected the way a user connects it: Slack's consent page, the
 * dashboard's callback and its channel picker. chat.postMessage has no idempotency key: these
 * tests count the messages the simulated workspace holds after answers were lost.
 */
describe('publishing to Slack through the whole stack', () => {
  let slack: RunningSlackSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let media: SmallMedia;
  let org: { apiKey: string; channelId: string };

  beforeAll(async () => {
    media = makeSmallMedia();
    slack = await startSlackSimulator({ 'user-1': structuredClone(acme) });
    // Slack shares completed files a moment after answering: the adapter finds the message in the channel.
    slack.sharing.shareDelayMs = 100;
    const port = await freePort();
    const frontendUrl = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({
      SLACK_CLIENT_ID: slack.clientId,
      SLACK_CLIENT_SECRET: slack.clientSecret,
      SLACK_API_URL: `${slack.url}/api`,
      SLACK_AUTH_URL: slack.url,
      SLACK_TOKEN_URL: `${slack.url}/api`,
      FRONTEND_URL: frontendUrl,
      // Two attempts: a throttled call that spent one would leave a single try for the rest.
      PUBLISH_ATTEMPTS: '2',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: String(maxWaitMs),
      PLATFORM_TIMEOUT_MS: '2000',
    });
    stack = await startStack(ctx, { port });

    const dashboard = new DashboardClient(stack.baseUrl);
    expect((await dashboard.signUp(newAccount('slack'))).status).toBe(302);
    await dashboard.get('/settings');
    const revealed = await dashboard.post('/settings/api-key/reveal', {});
    const apiKey = /id="api-key"[^>]*>([^<]+)</.exec(revealed.html)?.[1] ?? '';
    // Slack's consent page, the dashboard's callback, and #general picked among the workspace's channels.
    const started = await api(stack.baseUrl, apiKey, `${v1}/social/slack`);
    const consent = await fetch(z.object({ url: z.url() }).parse(started.body).url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') ?? '');
    const callback = await dashboard.get(`${back.pathname}${back.search}`);
    const pickPath = callback.location ?? '';
    expect(pickPath).toMatch(/^\/channels\/pick\/slack\?key=/);
    const key = new URL(pickPath, frontendUrl).searchParams.get('key') ?? '';
    const picked = await dashboard.post('/channels/pick/slack', { key, account: `T0ACME/${general}` });
    const channelId = /^\/channels\?connected=([0-9a-f]{24})$/.exec(picked.location ?? '')?.[1] ?? '';
    expect(channelId).not.toBe('');
    org = { apiKey, channelId };
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await slack.close();
    media.remove();
  });

  const inGeneral = { channel: general };
  const withText = (text: string) => slack.records.withText(text);

  it('publishes a thread whose first message carries an image, the next part a reply in its thread', async () => {
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const postId = await publishNow(stack.baseUrl, org, [
      { content: 'Slack e2e with an image', image: [image] },
      'Slack e2e reply',
    ], inGeneral);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => [part.state, part.error ?? null])).toEqual([['PUBLISHED', null], ['PUBLISHED', null]]);

    const [root] = withText('Slack e2e with an image');
    const file = slack.records.file(root?.files[0] ?? '');
    expect(file?.bytes?.equals(readFileSync(media.png))).toBe(true);
    expect(file).toMatchObject({ fileName: 'image.png', contentType: 'image/png', completed: true });
    const [reply] = withText('Slack e2e reply');
    expect(reply?.threadTs).toBe(root?.ts);
    expect(parts.map((part) => part.releaseId)).toEqual([
      `${general}:${root?.ts ?? ''}`, `${general}:${root?.ts ?? ''}:${reply?.ts ?? ''}`,
    ]);
    const link = `https://acme.slack.com/archives/${general}/p${root?.ts.replace('.', '') ?? ''}`;
    expect(parts[0]?.releaseURL).toBe(link);
    // Each step of the upload was checkpointed; the message was found in the channel once Slack shared it.
    expect(parts[0]?.checkpoint).toMatchObject({ file0Id: file?.id, file0Uploaded: '1', completed: '1' });
    expect(slack.calls('conversations.history').length).toBeGreaterThan(0);
  });

  it('posts once when Slack posted the message and its answer was lost: the retry finds it', async () => {
    const lost = slack.lostAnswers;
    slack.failNext('chat.postMessage', { lose: true });
    const postId = await publishNow(stack.baseUrl, org, ['Slack lost answer'], inGeneral);
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('PUBLISHED');
    expect(slack.lostAnswers).toBe(lost + 1);
    const made = withText('Slack lost answer');
    expect(made).toHaveLength(1);
    expect(slack.calls('chat.postMessage').filter((call) => call.text === 'Slack lost answer')).toHaveLength(1);
    expect(root?.releaseId).toBe(`${general}:${made[0]?.ts ?? ''}`);
  });

  it('waits for Slack\'s Retry-After on HTTP 429 without spending an attempt', async () => {
    slack.throttleNext('chat.postMessage', 1);
    const postId = await publishNow(stack.baseUrl, org, ['Slack throttled'], inGeneral);
    const sent = () => slack.received.filter((request) => request.path === '/api/chat.postMessage'
      && request.text.includes('Slack throttled'));
    const firstTry = await firstSendSeen(sent);
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('PUBLISHED');
    // Backoff alone would have retried after 20 ms; Slack asked for a second.
    expect(Date.now() - firstTry).toBeGreaterThanOrEqual(900);
    expect(sent()).toHaveLength(2);
    expect(withText('Slack throttled')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails the post with Slack\'s reason when the app is not in the channel', async () => {
    const postId = await publishNow(stack.baseUrl, org, ['Slack not a member'], { channel: 'C0NEWSDESK' });
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Slack chat.postMessage: the Slack app is not a member of this channel; invite it to '
      + 'the channel (or, for a public channel, use the joinChannel tool) and publish again (not_in_channel)');
    expect(withText('Slack not a member')).toHaveLength(0);
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(false);
  });

  // Last: revoking voids every token the simulator issued.
  it('fails the post and flags the channel once Slack no longer accepts the token', async () => {
    slack.authority.revokeAll();
    const postId = await publishNow(stack.baseUrl, org, ['Slack revoked'], inGeneral);
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('ERROR');
    expect(root?.error).toContain('(invalid_auth)');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(withText('Slack revoked')).toHaveLength(0);
  });
});
