import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  adaChannels, adaGuild, adaGuildId, discordAdapterFor, memoryMedia, partOf, replyOf,
} from '../../../test/simulators/discord/discord-fixture.ts';
import {
  startDiscordSimulator, type RunningDiscordSimulator,
} from '../../../test/simulators/discord/discord-simulator.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import type { PlatformAdapter } from '../kit/platform-adapter.ts';
import { discordNonce, nonceTrustMs } from './discord-send-once.ts';

let discord: RunningDiscordSimulator;
let adapter: PlatformAdapter;

beforeAll(async () => {
  discord = await startDiscordSimulator({ ada: adaGuild() });
  discord.installBot(adaGuildId);
  adapter = discordAdapterFor(discord);
});

beforeEach(() => {
  discord.messages.nonceWindowMs = 5 * 60_000;
});

afterAll(async () => {
  await discord.close();
});

const sendRoute = 'POST /channels/:id/messages';
const withText = (channelId: string, text: string) =>
  discord.messages.in(channelId).filter((message) => message.content === text);
const sends = (text: string) => discord.requestsTo(sendRoute).filter((request) => request.text.includes(text));
const lookups = () => discord.requestsTo('GET /channels/:id/messages').length;
/** A checkpointed send this long ago: older than SPS trusts Discord's nonce for. */
const longAgo = () => String(Date.now() - nonceTrustMs - 60_000);

describe('discord adapter: a part is posted once', () => {
  it('sends again with the same nonce after a lost answer, and Discord answers with the message it made', async () => {
    discord.traffic.failNext(sendRoute, { lose: true });
    const part = partOf('Lost once');
    const lost = await platformFailure(adapter.publish(part));
    expect(lost.kind).toBe('retryable');
    const lookupsBefore = lookups();

    const result = await adapter.publish(part);

    const made = withText(adaChannels.general, 'Lost once');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(`${adaChannels.general}_${made[0]?.id ?? ''}`);
    const nonces = sends('Lost once').map((request) => (JSON.parse(request.text) as { nonce: string }).nonce);
    expect(nonces).toEqual([discordNonce(part.idempotencyKey), discordNonce(part.idempotencyKey)]);
    // Within the nonce's window the retry trusts Discord and reads nothing first.
    expect(lookups()).toBe(lookupsBefore);
  });

  it('looks the message up before sending again once Discord\'s nonce window may have passed', async () => {
    discord.traffic.failNext(sendRoute, { lose: true });
    const media = [memoryMedia('late.png', Buffer.alloc(64, 3))];
    const part = partOf('Found later', {}, { media });
    await platformFailure(adapter.publish(part));
    // Discord has forgotten the nonce: only the look-up can stop a second message now.
    discord.messages.nonceWindowMs = 0;
    await part.checkpoint.save({ sentAt: longAgo() });

    const result = await adapter.publish(part);

    const made = withText(adaChannels.general, 'Found later');
    expect(made).toHaveLength(1);
    expect(sends('Found later')).toHaveLength(1);
    expect(result.releaseId).toBe(`${adaChannels.general}_${made[0]?.id ?? ''}`);
    const [lookup] = discord.requestsTo('GET /channels/:id/messages').slice(-1);
    expect(lookup?.query.get('after')).toMatch(/^\d+$/);
  });

  it('sends again when the look-up finds nothing: the lost attempt never reached Discord', async () => {
    const part = partOf('Never arrived');
    await part.checkpoint.save({ sentAt: longAgo() });

    await adapter.publish(part);

    expect(withText(adaChannels.general, 'Never arrived')).toHaveLength(1);
    // The new send is checkpointed again, so a retry after it counts from it.
    expect(Number(part.checkpoint.values.sentAt)).toBeGreaterThan(Date.now() - 10_000);
  });

  it('clears the checkpointed send when Discord refuses: nothing was made, nothing to look for', async () => {
    discord.traffic.failNext(sendRoute, discord.traffic.throttled(0.2));
    const part = partOf('Refused first');
    await platformFailure(adapter.publish(part));

    expect(part.checkpoint.values.sentAt).toBe('');
  });

  it('takes the thread an earlier attempt started when that answer was lost (160004)', async () => {
    const first = await adapter.publish(partOf('Thread root'));
    discord.traffic.failNext('POST /channels/:id/messages/:id/threads', { lose: true });
    const second = replyOf(first.releaseId, 'Thread reply');
    await platformFailure(adapter.comment(second));
    expect(second.checkpoint.values.threadId).toBeUndefined();

    await adapter.comment(second);

    const rootId = first.releaseId.split('_')[1] ?? '';
    expect(discord.threads.all().filter((thread) => thread.id === rootId)).toHaveLength(1);
    expect(second.checkpoint.values.threadId).toBe(rootId);
    expect(withText(rootId, 'Thread reply')).toHaveLength(1);
  });

  it('does not start the thread again once its id is checkpointed', async () => {
    const first = await adapter.publish(partOf('Checkpointed root'));
    const starts = discord.requestsTo('POST /channels/:id/messages/:id/threads').length;
    discord.traffic.failNext(sendRoute, { lose: true });
    const second = replyOf(first.releaseId, 'Checkpointed reply');
    await platformFailure(adapter.comment(second));

    await adapter.comment(second);

    expect(discord.requestsTo('POST /channels/:id/messages/:id/threads')).toHaveLength(starts + 1);
    expect(withText(first.releaseId.split('_')[1] ?? '', 'Checkpointed reply')).toHaveLength(1);
  });

  it('finds a forum post whose answer was lost among the server\'s active threads, and makes no second', async () => {
    discord.traffic.failNext('POST /channels/:id/threads', { lose: true });
    const part = partOf('Forum once', { channel: adaChannels.ideas });
    await platformFailure(adapter.publish(part));

    const result = await adapter.publish(part);

    const posts = discord.threads.all().filter((thread) => thread.name === 'Forum once');
    expect(posts).toHaveLength(1);
    expect(result.releaseId).toBe(`${posts[0]?.id ?? ''}_${posts[0]?.id ?? ''}`);
    expect(discord.requestsTo('POST /channels/:id/threads').filter((request) => request.text.includes('Forum once')))
      .toHaveLength(1);
    expect(discord.requestsTo('GET /guilds/:id/threads/active').length).toBeGreaterThan(0);
  });
});
