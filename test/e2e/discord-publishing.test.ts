import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { discordNonce } from '../../shared/platforms/discord/discord-send-once.ts';
import { DashboardClient, newAccount } from '../browser/dashboard-client.ts';
import { adaChannels, adaGuild, adaGuildId } from '../simulators/discord/discord-fixture.ts';
import { startDiscordSimulator, type RunningDiscordSimulator } from '../simulators/discord/discord-simulator.ts';
import { api } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { postNow, publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { makeSmallMedia, type SmallMedia } from '../support/small-media.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { padMp4 } from '../support/test-media.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';

const v1 = '/api/public/v1';
const sendRoute = 'POST /channels/:id/messages';
/** Settings of a post to Ada's #general. */
const general = { channel: adaChannels.general };

/**
 * Discord publishing from POST /posts through the queue and the publish worker to the Discord
 * simulator, in a server whose user added the operator's bot the way users add it: the bot's
 * install consent, the dashboard's callback and its channel picker. Exactly once rests on the
 * nonce each message carries: these tests count what the simulated channels hold.
 */
describe('publishing to Discord through the whole stack', () => {
  let discord: RunningDiscordSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let media: SmallMedia;
  let org = { apiKey: '', channelId: '' };

  beforeAll(async () => {
    media = makeSmallMedia();
    discord = await startDiscordSimulator({ 'user-1': adaGuild() });
    const port = await freePort();
    const frontendUrl = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({
      DISCORD_CLIENT_ID: discord.clientId,
      DISCORD_CLIENT_SECRET: discord.clientSecret,
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_API_URL: `${discord.url}/api`,
      DISCORD_AUTH_URL: discord.url,
      DISCORD_TOKEN_URL: `${discord.url}/api`,
      FRONTEND_URL: frontendUrl,
      // Two attempts: a throttled send that spent one would leave a single try for anything else.
      PUBLISH_ATTEMPTS: '2',
      PUBLISH_BACKOFF_MS: '20',
      PLATFORM_TIMEOUT_MS: '2000',
      PUBLISH_MAX_RETRY_AFTER_MS: '3000',
    });
    stack = await startStack(ctx, { port });
    org = await connectAdasServer(frontendUrl);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await discord.close();
    media.remove();
  });

  /** A user signs up, adds the bot to Ada's server from `GET /social/discord`, and picks #general. */
  async function connectAdasServer(frontendUrl: string): Promise<{ apiKey: string; channelId: string }> {
    const dashboard = new DashboardClient(stack.baseUrl);
    expect((await dashboard.signUp(newAccount('discord'))).status).toBe(302);
    await dashboard.get('/settings');
    const revealed = await dashboard.post('/settings/api-key/reveal', {});
    const apiKey = /id="api-key"[^>]*>([^<]+)</.exec(revealed.html)?.[1] ?? '';
    const started = await api(stack.baseUrl, apiKey, `${v1}/social/discord`);
    expect(started.status).toBe(200);
    const consent = await fetch(z.object({ url: z.url() }).parse(started.body).url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') ?? '');
    const callback = await dashboard.get(`${back.pathname}${back.search}`);
    const pickPath = callback.location ?? '';
    expect(pickPath, callback.html).toMatch(/^\/channels\/pick\/discord\?key=/);
    expect((await dashboard.get(pickPath)).html).toContain(`value="${adaChannels.general}"`);
    const key = new URL(pickPath, frontendUrl).searchParams.get('key') ?? '';
    const picked = await dashboard.post('/channels/pick/discord', { key, account: adaChannels.general });
    const channelId = /^\/channels\?connected=([0-9a-f]{24})$/.exec(picked.location ?? '')?.[1] ?? '';
    expect(channelId).not.toBe('');
    return { apiKey, channelId };
  }

  const withText = (channelId: string, text: string) =>
    discord.messages.in(channelId).filter((message) => message.content === text);
  const sendsOf = (text: string) => discord.requestsTo(sendRoute).filter((request) => request.text.includes(text));

  it('publishes three parts: an image on the first message, the others in a thread started from it', async () => {
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const postId = await publishNow(stack.baseUrl, org, [
      { content: 'Discord e2e 1/3', image: [image] }, 'Discord e2e 2/3', 'Discord e2e 3/3',
    ], general);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => [part.state, part.error ?? null])).toEqual([
      ['PUBLISHED', null], ['PUBLISHED', null], ['PUBLISHED', null],
    ]);

    const [first] = withText(adaChannels.general, 'Discord e2e 1/3');
    expect(first?.attachments.map((file) => file.filename)).toEqual(['image.png']);
    expect(first?.attachments[0]?.bytes.equals(readFileSync(media.png))).toBe(true);
    const thread = discord.world.channels.get(first?.id ?? '');
    expect(thread).toMatchObject({ parentId: adaChannels.general, name: 'Discord e2e 1/3' });
    const inThread = discord.messages.in(thread?.id ?? '');
    expect(inThread.map((message) => message.content)).toEqual(['Discord e2e 2/3', 'Discord e2e 3/3']);
    const messages = [first, ...inThread];
    const releaseIds = messages.map((item) => `${item?.channelId ?? ''}_${item?.id ?? ''}`);
    expect(parts.map((part) => part.releaseId)).toEqual(releaseIds);
    const link = `https://discord.com/channels/${adaGuildId}/${adaChannels.general}/${first?.id ?? ''}`;
    expect(parts[0]?.releaseURL).toBe(link);
    const nonces = parts.map((part) => discordNonce(`sps-post-${part._id.toString()}`));
    expect(messages.map((item) => item?.nonce)).toEqual(nonces);
    expect(parts[1]?.checkpoint).toMatchObject({ threadId: thread?.id });
  });

  it('posts once when Discord made the message and its answer was lost: the retry\'s nonce gets it', async () => {
    const lostBefore = discord.traffic.lostAnswers;
    discord.traffic.failNext(sendRoute, { lose: true });
    const postId = await publishNow(stack.baseUrl, org, ['Discord lost answer'], general);
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('PUBLISHED');
    expect(discord.traffic.lostAnswers).toBe(lostBefore + 1);
    const made = withText(adaChannels.general, 'Discord lost answer');
    expect(made).toHaveLength(1);
    const nonce = discordNonce(`sps-post-${postId}`);
    expect(sendsOf('Discord lost answer').map((request) => (JSON.parse(request.text) as { nonce: string }).nonce))
      .toEqual([nonce, nonce]);
    expect(root?.releaseId).toBe(`${adaChannels.general}_${made[0]?.id ?? ''}`);
  });

  it('waits for Discord\'s retry_after on a 429 without spending an attempt', async () => {
    discord.traffic.failNext(sendRoute, discord.traffic.throttled(1.2));
    const postId = await publishNow(stack.baseUrl, org, ['Discord after the limit'], general);
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('PUBLISHED');
    const sent = sendsOf('Discord after the limit');
    expect(sent).toHaveLength(2);
    // Backoff alone would have tried again after 20 ms.
    expect((sent[1]?.receivedAt ?? 0) - (sent[0]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(1_150);
    expect(withText(adaChannels.general, 'Discord after the limit')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails the post with Discord\'s Missing Permissions and what to do, leaving the channel connected', async () => {
    const postId = await publishNow(stack.baseUrl, org, ['Discord read only'], { channel: adaChannels.readOnly });
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('ERROR');
    expect(root?.error).toMatch(/^Discord: Missing Permissions \(50013\): the bot lacks a permission/);
    expect(withText(adaChannels.readOnly, 'Discord read only')).toHaveLength(0);
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).not.toBe(true);
  });

  it('refuses at POST /posts a video over 10 MiB, and sends nothing', async () => {
    // SPS itself takes images up to 10 MiB: a video is what can be larger than Discord takes.
    const big = padMp4(media.mp4, path.join(path.dirname(media.mp4), 'big.mp4'), 10 * 1024 * 1024 + 1);
    const video = await uploadFile(stack.baseUrl, org.apiKey, big);
    const before = discord.received.length;
    const answer = await postNow(stack.baseUrl, org, [{ content: 'Too big for Discord', image: [video] }], general);

    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('the video is 10.1 MB; Discord takes videos up to 10 MB');
    expect(discord.received).toHaveLength(before);
  });

  // Last: the operator's bot token stops working for every channel.
  it('flags the channel when Discord refuses the bot token, saying the operator\'s token is at fault', async () => {
    discord.resetBotToken();
    const postId = await publishNow(stack.baseUrl, org, ['Discord token reset'], general);
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('ERROR');
    expect(root?.error).toMatch(/^Discord refused the bot token of this SPS installation/);
    expect(root?.error).toContain('DISCORD_BOT_TOKEN');
    const channel = await waitFor(async () => {
      const found = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
      return found?.refreshNeeded === true ? found : undefined;
    }, { what: 'the channel to be flagged' });
    expect(channel.refreshNeeded).toBe(true);
    expect(withText(adaChannels.general, 'Discord token reset')).toHaveLength(0);
  });
});
