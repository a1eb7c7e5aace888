import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelegramSimulator, type TelegramSimulator } from '../simulators/telegram/telegram-simulator.ts';
import { addTelegramWorld, bot, chats } from '../simulators/telegram/telegram-world.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { api } from '../support/fixtures.ts';
import { postNow, publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { makeSmallMedia } from '../support/small-media.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { organizationWithCredentialChannel } from '../support/credential-channel.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';

const media = makeSmallMedia();
/** A channel that removes the bot during the tests. */
const leavingChannel = -1003333333333;

/**
 * Telegram messages from POST /posts through the queue and the publish worker to the Bot API
 * simulator, on a channel connected the way the dashboard's form connects it (bot token and
 * @username). Exactly once rests on a checkpoint before each send and on never repeating an
 * unanswered one: these tests count the messages the simulator's chat holds.
 */
describe('publishing to Telegram through the whole stack', () => {
  let telegram: TelegramSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let organizations = 0;

  beforeAll(async () => {
    telegram = await startTelegramSimulator();
    addTelegramWorld(telegram);
    telegram.addChat({
      id: leavingChannel, type: 'channel', title: 'Leaving', username: 'leaving_channel',
      members: new Map([[bot.id, { status: 'administrator', canPostMessages: true }]]),
    });
    ctx = await createTestContext({
      TELEGRAM_API_URL: telegram.url,
      // Two attempts: a throttled send that spent one would leave none for the retry.
      PUBLISH_ATTEMPTS: '2',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: '1500',
      PLATFORM_TIMEOUT_MS: '2000',
    });
    stack = await startStack(ctx);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await telegram.close();
    media.remove();
  });

  /** An organization that connected `chat` with the bot's token in the dashboard's form. */
  async function organization(chat = '@release_notes'): Promise<{ apiKey: string; channelId: string }> {
    organizations += 1;
    const name = `Telegram org ${String(organizations)}`;
    return organizationWithCredentialChannel(ctx, 'telegram', { botToken: bot.token, chat }, name);
  }

  const messagesWith = (text: string) => telegram.messages.filter((message) => message.text === text);

  it('publishes text, an album of a photo and a video, and text, each replying to the part before', async () => {
    const org = await organization();
    const photo = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const postId = await publishNow(stack.baseUrl, org, [
      'E2E thread 1/3',
      { content: 'E2E thread 2/3', image: [photo, video] },
      'E2E thread 3/3',
    ], { disable_notification: true });
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);

    const [first] = messagesWith('E2E thread 1/3');
    const album = telegram.messages.filter((message) => message.replyTo === first?.messageId);
    const [last] = messagesWith('E2E thread 3/3');
    expect(album.map((item) => [item.kind, item.text, item.file?.fileName])).toEqual([
      ['photo', 'E2E thread 2/3', 'image.png'], ['video', null, 'clip.mp4'],
    ]);
    expect(album[0]?.mediaGroupId).not.toBeNull();
    expect(album[1]?.mediaGroupId).toBe(album[0]?.mediaGroupId);
    expect(last?.replyTo).toBe(album[0]?.messageId);
    expect([first, ...album, last].every((message) => message?.chatId === chats.channel)).toBe(true);
    expect([first, ...album, last].every((message) => message?.options.disable_notification === true)).toBe(true);

    const ids = [first, album[0], last].map((message) => String(message?.messageId));
    expect(parts.map((part) => part.releaseId)).toEqual(ids.map((id) => `${String(chats.channel)}_${id}`));
    expect(parts.map((part) => part.releaseURL)).toEqual(ids.map((id) => `https://t.me/release_notes/${id}`));
  });

  it('posts one message when the answer was lost, and sets the part aside instead of sending it again', async () => {
    const org = await organization();
    telegram.failNext('sendMessage', { lose: true });
    const lostBefore = telegram.lostAnswers;
    const postId = await publishNow(stack.baseUrl, org, ['E2E lost answer']);
    const [root] = await settledParts(ctx.db, postId);

    expect(telegram.lostAnswers).toBe(lostBefore + 1);
    expect(messagesWith('E2E lost answer')).toHaveLength(1);
    expect(root).toMatchObject({ state: 'ERROR', releaseId: 'missing' });
    expect(root?.error).toContain('unconfirmed: Telegram may have posted this message');
    const job = await finishedPublishJob(stack.publishQueue, postId);
    // The retry ran and sent nothing: the one message is the first attempt's.
    expect(job).toMatchObject({ state: 'failed', attemptsMade: 2 });
    const sent = telegram.calls('sendMessage').filter((call) => call.text.includes('E2E lost answer'));
    expect(sent).toHaveLength(1);

    // The user finds the message in the chat and links it by its id.
    const messageId = String(messagesWith('E2E lost answer')[0]?.messageId);
    const linked = await api(stack.baseUrl, org.apiKey, `/api/public/v1/posts/${postId}/release-id`, {
      method: 'PUT', body: { releaseId: `${String(chats.channel)}_${messageId}` },
    });
    expect(linked.status).toBe(200);
    const after = await ctx.db.posts.findById(postId).lean();
    expect(after).toMatchObject({ state: 'PUBLISHED', releaseId: `${String(chats.channel)}_${messageId}` });
  });

  it('waits for flood control\'s retry_after without spending an attempt', async () => {
    const org = await organization();
    telegram.failNext('sendMessage', { retryAfter: 1 });
    const postId = await publishNow(stack.baseUrl, org, ['E2E throttled']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    expect(messagesWith('E2E throttled')).toHaveLength(1);
    const tries = telegram.calls('sendMessage').filter((call) => call.text.includes('E2E throttled'));
    expect(tries).toHaveLength(2);
    // Backoff would have retried after 20 ms; Telegram asked for a second.
    expect((tries[1]?.receivedAt ?? 0) - (tries[0]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(950);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('refuses at POST /posts a caption longer than Telegram takes, and sends nothing', async () => {
    const org = await organization();
    const photo = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const before = telegram.received.length;
    const answer = await postNow(stack.baseUrl, org, [{ content: 'c'.repeat(1025), image: [photo] }]);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('Telegram captions take at most 1024');
    expect(telegram.received.length).toBe(before);
  });

  it('fails the post with Telegram\'s words and flags the channel once the bot was kicked', async () => {
    const org = await organization('@leaving_channel');
    telegram.setMembership(leavingChannel, bot.id, { status: 'kicked' });
    const postId = await publishNow(stack.baseUrl, org, ['E2E kicked']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Telegram: Forbidden: bot was kicked from the channel chat');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(messagesWith('E2E kicked')).toHaveLength(0);
  });
});
