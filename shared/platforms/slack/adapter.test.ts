import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { connectedSlack } from '../../../test/simulators/slack/slack-connected.ts';
import type { RunningSlackSimulator } from '../../../test/simulators/slack/slack-simulator.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishResult } from '../kit/platform-adapter.ts';
import { createSlackAdapter } from './adapter.ts';
import { encodeSlackCredential } from './credential.ts';

const general = 'C0GENERAL';

describe('Slack adapter against the simulator: messages, threads, refusals', () => {
  let slack: RunningSlackSimulator;
  let channel: ChannelCredentials;
  let adapter: PlatformAdapter;
  let keys = 0;

  beforeAll(async () => {
    const connected = await connectedSlack();
    ({ slack, channel } = connected);
    adapter = createSlackAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, connected.app);
  });
  afterAll(async () => { await slack.close(); });

  function publish(content: string, settings: Record<string, unknown> = {}, checkpoint = memoryCheckpoint()) {
    keys += 1;
    return adapter.publish({
      channel, content, media: [], settings: { channel: general, ...settings },
      idempotencyKey: `sps-post-${String(keys)}`, checkpoint,
    });
  }

  function reply(parent: PublishResult, content: string, checkpoint = memoryCheckpoint(), settings = {}) {
    keys += 1;
    return adapter.comment({
      channel, content, media: [], settings: { channel: general, ...settings },
      idempotencyKey: `sps-post-${String(keys)}`, checkpoint, parentReleaseId: parent.releaseId,
    });
  }

  const posts = (text: string) => slack.calls('chat.postMessage').filter((call) => call.text === text);
  const lastRequest = (path: string) => slack.received.filter((request) => request.path === path).at(-1);

  describe('messages', () => {
    it('posts the first part to the settings\' channel as JSON with the bot token, names its link', async () => {
      const checkpoint = memoryCheckpoint();
      const result = await publish('Hello from SPS', {}, checkpoint);

      const [message] = slack.records.withText('Hello from SPS');
      expect(message).toMatchObject({ channel: general, threadTs: null, user: 'U0BOT' });
      expect(result.releaseId).toBe(`${general}:${message?.ts ?? ''}`);
      const link = `https://acme.slack.com/archives/${general}/p${message?.ts.replace('.', '') ?? ''}`;
      expect(result.releaseURL).toBe(link);
      const request = lastRequest('/api/chat.postMessage');
      expect(request?.headers['content-type']).toMatch(/^application\/json/);
      expect(request?.headers.authorization).toMatch(/^Bearer at-/);
      // The send time was checkpointed before the message went.
      expect(checkpoint.saves).toEqual([{ sentAt: expect.stringMatching(/^\d+$/) as unknown }]);
    });

    it('sends the presentation settings, and escapes Slack\'s markup so the text shows as written', async () => {
      await publish('2 < 3 & <!channel>', { username: 'Release bot', icon_emoji: ':rocket:', unfurl_links: false });

      expect(slack.records.withText('2 &lt; 3 &amp; &lt;!channel&gt;')).toHaveLength(1);
      expect(slack.records.messages.at(-1)?.options).toEqual({
        username: 'Release bot', icon_emoji: ':rocket:', unfurl_links: false,
      });
    });

    it('posts later parts in the first message\'s thread, even when the previous part is itself a reply', async () => {
      const root = await publish('Thread 1/3');
      const second = await reply(root, 'Thread 2/3', memoryCheckpoint(), { reply_broadcast: true });
      const third = await reply(second, 'Thread 3/3');

      const [first] = slack.records.withText('Thread 1/3');
      const rootTs = first?.ts ?? '';
      const replies = slack.records.messages.filter((message) => message.threadTs === rootTs);
      expect(replies.map((message) => [message.text, message.broadcast])).toEqual([
        ['Thread 2/3', true], ['Thread 3/3', false],
      ]);
      expect(second.releaseId).toBe(`${general}:${rootTs}:${replies[0]?.ts ?? ''}`);
      expect(third.releaseId).toBe(`${general}:${rootTs}:${replies[1]?.ts ?? ''}`);
      expect(third.releaseURL).toContain(`?thread_ts=${rootTs}&cid=${general}`);
    });
  });

  describe('exactly once without an idempotency key', () => {
    it('finds the message of an attempt whose answer was lost, instead of posting it again', async () => {
      const checkpoint = memoryCheckpoint();
      slack.failNext('chat.postMessage', { lose: true });
      const lost = await platformFailure(publish('Lost answer, see https://example.com/notes', {}, checkpoint));
      expect(lost.kind).toBe('retryable');

      const retried = await publish('Lost answer, see https://example.com/notes', {}, checkpoint);
      // Slack stored the link as <url>: the look-up reads it back unwrapped.
      const made = slack.records.withText('Lost answer, see <https://example.com/notes>');
      expect(made).toHaveLength(1);
      expect(retried.releaseId).toBe(`${general}:${made[0]?.ts ?? ''}`);
      expect(posts('Lost answer, see https://example.com/notes')).toHaveLength(1);
      expect(slack.calls('conversations.history').at(-1)).toMatchObject({ channel: general });
    });

    it('finds a thread reply whose answer was lost in the thread', async () => {
      const root = await publish('Lost reply root');
      const checkpoint = memoryCheckpoint();
      slack.failNext('chat.postMessage', { lose: true });
      await platformFailure(reply(root, 'Lost reply', checkpoint));
      const retried = await reply(root, 'Lost reply', checkpoint);

      expect(slack.records.withText('Lost reply')).toHaveLength(1);
      expect(retried.releaseId).toBe(`${root.releaseId}:${slack.records.withText('Lost reply')[0]?.ts ?? ''}`);
      expect(slack.calls('conversations.replies').at(-1)).toMatchObject({ ts: root.releaseId.split(':')[1] });
    });

    it('sends again when the earlier attempt\'s message is not in the channel', async () => {
      const checkpoint = memoryCheckpoint({ sentAt: String(Date.now() - 5_000) });
      const reads = slack.calls('conversations.history').length;
      await publish('Never arrived', {}, checkpoint);

      expect(slack.calls('conversations.history').length).toBe(reads + 1);
      expect(slack.records.withText('Never arrived')).toHaveLength(1);
    });

    it('clears the send mark when Slack refuses, so the next attempt sends without reading the channel', async () => {
      const checkpoint = memoryCheckpoint();
      slack.failNext('chat.postMessage', { error: 'internal_error' });
      const refused = await platformFailure(publish('Refused once', {}, checkpoint));
      expect(refused.kind).toBe('retryable');
      expect(checkpoint.values.sentAt).toBe('');

      const reads = slack.calls('conversations.history').length;
      await publish('Refused once', {}, checkpoint);
      expect(slack.calls('conversations.history').length).toBe(reads);
      expect(slack.records.withText('Refused once')).toHaveLength(1);
    });
  });

  describe('refusals, classified on Slack\'s codes', () => {
    it('says what to do when the app is not in the channel (not_in_channel)', async () => {
      const error = await platformFailure(publish('Not a member', { channel: 'C0NEWSDESK' }));
      expect(error.kind).toBe('permanent');
      expect(error.message).toBe('Slack chat.postMessage: the Slack app is not a member of this channel; invite it '
        + 'to the channel (or, for a public channel, use the joinChannel tool) and publish again (not_in_channel)');
    });

    it.each([
      ['G0BOARDROOM', 'channel_not_found'],
      ['C0ARCHIVED', 'is_archived'],
    ])('refuses to post in %s as Slack does (%s)', async (target, code) => {
      const error = await platformFailure(publish('Nowhere', { channel: target }));
      expect(error.kind).toBe('permanent');
      expect(error.message).toContain(`(${code})`);
    });

    it('passes on Slack\'s refusal of text too long or empty', async () => {
      const long = await platformFailure(publish('a'.repeat(40_001)));
      expect(long.message).toContain('(msg_too_long)');
      const empty = await platformFailure(publish(''));
      expect([empty.kind, empty.message])
        .toEqual(['permanent', 'Slack chat.postMessage: a Slack message needs text or a file (no_text)']);
    });

    it('calls the channel disconnected when Slack no longer accepts the token', async () => {
      const stranger = {
        ...channel,
        accessToken: encodeSlackCredential({ botToken: 'xoxb-unknown', teamId: 'T0ACME', channelId: general }),
      };
      const error = await platformFailure(adapter.publish({
        channel: stranger, content: 'x', media: [], settings: { channel: general }, idempotencyKey: 'k',
        checkpoint: memoryCheckpoint(),
      }));
      expect([error.kind, error.message]).toEqual([
        'disconnected',
        'Slack auth.test: the workspace no longer accepts the app\'s token; connect it again (invalid_auth)',
      ]);
    });

    it.each(['token_revoked', 'account_inactive', 'token_expired'])('reads %s as disconnected', async (code) => {
      slack.failNext('chat.postMessage', { error: code });
      const error = await platformFailure(publish('Dead token'));
      // Without token rotation SPS holds no refresh token: an expired one needs the workspace connected again.
      expect(error.kind).toBe('disconnected');
      expect(error.message).toContain(`(${code})`);
    });

    it('names the scope a token lacks, to be granted by connecting again', async () => {
      slack.failNext('chat.postMessage', {
        status: 200, body: { ok: false, error: 'missing_scope', needed: 'chat:write', provided: 'channels:read' },
      });
      const error = await platformFailure(publish('No scope'));
      expect(error.kind).toBe('disconnected');
      expect(error.message).toBe('Slack chat.postMessage: the app\'s token lacks chat:write; connect the workspace '
        + 'again to grant it (missing_scope)');
    });

    it('waits for Retry-After on HTTP 429, and a minute for rate_limited sent with HTTP 200', async () => {
      const checkpoint: MemoryCheckpoint = memoryCheckpoint();
      slack.throttleNext('chat.postMessage', 3);
      const throttled = await platformFailure(publish('Throttled', {}, checkpoint));
      expect([throttled.kind, throttled.httpStatus, throttled.retryAfterMs]).toEqual(['retryable', 429, 3_000]);
      expect(throttled.message).toContain('(ratelimited)');
      expect(checkpoint.values.sentAt).toBe('');

      slack.failNext('chat.postMessage', { error: 'rate_limited' });
      const posting = await platformFailure(publish('Throttled'));
      expect([posting.kind, posting.retryAfterMs]).toEqual(['retryable', 60_000]);
      expect(slack.records.withText('Throttled')).toHaveLength(0);
    });

    // The codes of Slack's reference (its common errors): `fatal_error`, not `fatal`.
    const troubles = ['fatal_error', 'internal_error', 'service_unavailable'];
    it.each(troubles)('retries Slack\'s own trouble (%s)', async (code) => {
      slack.failNext('chat.postMessage', { error: code });
      expect((await platformFailure(publish('Trouble'))).kind).toBe('retryable');
    });
  });

  describe('tools', () => {
    it('lists channels a page at a time, following Slack\'s cursor', async () => {
      const first = await adapter.tools.channels?.(channel, {}) as { channels: unknown[]; nextCursor: string };
      expect(first.channels).toEqual([
        { id: 'C0GENERAL', name: 'general', isPrivate: false, isMember: true },
        { id: 'C0NEWSDESK', name: 'news', isPrivate: false, isMember: false },
      ]);
      const second = await adapter.tools.channels?.(channel, { cursor: first.nextCursor });
      expect(second).toEqual({
        channels: [{ id: 'G0LAUNCHPAD', name: 'launch', isPrivate: true, isMember: true }], nextCursor: null,
      });
      expect(slack.calls('conversations.list').at(-1))
        .toMatchObject({ exclude_archived: 'true', cursor: first.nextCursor });
    });

    it('refuses a malformed cursor, and one Slack does not know', async () => {
      expect((await platformFailure(Promise.resolve(adapter.tools.channels?.(channel, { cursor: ' ' })))).message)
        .toBe('cursor must not be empty');
      const unknown = await platformFailure(Promise.resolve(adapter.tools.channels?.(channel, { cursor: 'nope' })));
      expect([unknown.kind, unknown.message]).toEqual(['permanent', 'Slack conversations.list: invalid_cursor']);
    });

    it('joins a public channel, says when the bot was in it already, and refuses private ones', async () => {
      expect(await adapter.tools.joinChannel?.(channel, { channel: 'C0NEWSDESK' }))
        .toEqual({ id: 'C0NEWSDESK', name: 'news', alreadyMember: false });
      expect(await adapter.tools.joinChannel?.(channel, { channel: 'C0NEWSDESK' }))
        .toEqual({ id: 'C0NEWSDESK', name: 'news', alreadyMember: true });
      await publish('Joined', { channel: 'C0NEWSDESK' });
      expect(slack.records.withText('Joined')[0]?.channel).toBe('C0NEWSDESK');

      const secret = await platformFailure(
        Promise.resolve(adapter.tools.joinChannel?.(channel, { channel: 'G0LAUNCHPAD' })),
      );
      expect(secret.message).toContain('only public channels can be joined');
      const named = await platformFailure(Promise.resolve(adapter.tools.joinChannel?.(channel, { channel: '#news' })));
      expect([named.kind, named.message]).toEqual([
        'permanent', 'channel must be a Slack channel id such as "C0123456789"',
      ]);
    });
  });

  describe('analytics and recent content', () => {
    it('reads the connected channel\'s members, and a message\'s reactions and replies', async () => {
      expect(await adapter.analytics?.account(channel)).toEqual([{ label: 'Members', value: 42 }]);

      const root = await publish('Counted');
      const answer = await reply(root, 'Counted reply');
      const message = slack.records.withText('Counted')[0];
      message?.reactions.push({ name: 'tada', count: 3 }, { name: 'eyes', count: 2 });
      expect(await adapter.analytics?.post(channel, root.releaseId)).toEqual([
        { label: 'Reactions', value: 5 }, { label: 'Replies', value: 1 },
      ]);
      expect(await adapter.analytics?.post(channel, answer.releaseId)).toEqual([{ label: 'Reactions', value: 0 }]);
      expect(slack.calls('reactions.get').at(-1)).toMatchObject({ channel: general, full: 'true' });
    });

    it('offers the bot\'s latest messages in the connected channel, newest first', async () => {
      const latest = await publish('Most recent');
      const recent = await adapter.recentContent(channel);
      expect(recent[0]).toEqual({ id: latest.releaseId, url: latest.releaseURL });
      expect(recent.length).toBeLessThanOrEqual(20);
    });
  });
});
