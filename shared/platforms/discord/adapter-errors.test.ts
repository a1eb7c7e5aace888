import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adaChannels, adaGuild, adaGuildId, discordAdapterFor, memoryMedia, partOf, replyOf,
} from '../../../test/simulators/discord/discord-fixture.ts';
import {
  startDiscordSimulator, type RunningDiscordSimulator,
} from '../../../test/simulators/discord/discord-simulator.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import type { PlatformAdapter } from '../kit/platform-adapter.ts';

let discord: RunningDiscordSimulator;
let adapter: PlatformAdapter;

beforeAll(async () => {
  discord = await startDiscordSimulator({ ada: adaGuild() });
  discord.installBot(adaGuildId);
  adapter = discordAdapterFor(discord);
});

afterAll(async () => {
  await discord.close();
});

const sendRoute = 'POST /channels/:id/messages';

describe('discord adapter: refusals, classified on Discord\'s codes', () => {
  it('tells the user to grant the bot permissions when Discord says Missing Permissions (50013)', async () => {
    const error = await platformFailure(adapter.publish(partOf('Read only', { channel: adaChannels.readOnly })));

    expect(error.kind).toBe('permanent');
    expect(error.httpStatus).toBe(403);
    expect(error.message).toMatch(/^Discord: Missing Permissions \(50013\): the bot lacks a permission/);
    expect(error.message).toMatch(/add the bot to the server again/);
  });

  it('says the bot cannot see a channel it has no access to (50001)', async () => {
    const error = await platformFailure(adapter.publish(partOf('Hidden', { channel: adaChannels.hidden })));

    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/^Discord: Missing Access \(50001\): the bot cannot see this channel/);
  });

  it('says a deleted channel is gone (10003)', async () => {
    const error = await platformFailure(adapter.publish(partOf('Gone', { channel: '1299999999999999999' })));

    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/^Discord: Unknown Channel \(10003\): the channel was deleted/);
  });

  it('refuses files in a channel where the bot may not attach them, with Discord\'s code', async () => {
    const media = [memoryMedia('x.png', Buffer.alloc(10))];
    const part = partOf('No files', { channel: adaChannels.noFiles }, { media });
    const error = await platformFailure(adapter.publish(part));

    expect(error.message).toMatch(/\(50013\)/);
  });

  it('fails a later part readably when the bot may not start threads', async () => {
    const settings = { channel: adaChannels.noThreads };
    const first = await adapter.publish(partOf('No threads here', settings));
    const error = await platformFailure(adapter.comment(replyOf(first.releaseId, 'Second', settings)));

    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/Missing Permissions \(50013\)/);
  });

  it('reads Discord\'s 40005 as files too large for the server', async () => {
    const guild = discord.world.guild(adaGuildId);
    if (guild === undefined) throw new Error('no guild');
    guild.fileLimitBytes = 1_000;
    try {
      const media = [memoryMedia('big.png', Buffer.alloc(2_000))];
      const error = await platformFailure(adapter.publish(partOf('Big file', {}, { media })));

      expect(error.kind).toBe('permanent');
      expect(error.httpStatus).toBe(413);
      expect(error.message).toBe('Discord: Request entity too large (40005): the files are larger than this server '
        + 'lets the bot send (10 MiB a file unless server boosts raise it, 25 MiB a message)');
    } finally {
      delete guild.fileLimitBytes;
    }
  });

  it('names the field Discord refused in an invalid form body (50035)', async () => {
    const error = await platformFailure(adapter.publish(partOf('x'.repeat(2_001))));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Discord: Invalid Form Body (50035): content: Must be 2000 or fewer in length.');
  });

  it('calls a refused bot token disconnected, and says the operator\'s token is at fault', async () => {
    const error = await platformFailure(discordAdapterFor(discord, 'not-the-token').publish(partOf('Wrong token')));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toMatch(/^Discord refused the bot token of this SPS installation \(401: Unauthorized\)/);
    expect(error.message).toMatch(/DISCORD_BOT_TOKEN; connecting the channel again does not change it/);
  });

  it('says so when the installation has no bot token, without calling Discord', async () => {
    const before = discord.received.length;
    const error = await platformFailure(discordAdapterFor(discord, null).publish(partOf('No token')));

    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/DISCORD_BOT_TOKEN/);
    expect(discord.received).toHaveLength(before);
  });

  it('waits out a 429 for the body\'s retry_after, in milliseconds', async () => {
    discord.traffic.failNext(sendRoute, discord.traffic.throttled(1.25));
    const error = await platformFailure(adapter.publish(partOf('Throttled')));

    expect(error.kind).toBe('retryable');
    expect(error.retryAfterMs).toBe(1_250);
    expect(error.message).toBe('Discord: You are being rate limited., retry after 1.25 s');
  });

  it('waits out the bot\'s global limit too', async () => {
    discord.traffic.failNext(sendRoute, discord.traffic.throttled(0.4, 'global'));
    const error = await platformFailure(adapter.publish(partOf('Global limit')));

    expect(error.kind).toBe('retryable');
    expect(error.retryAfterMs).toBe(400);
  });

  it('waits for X-RateLimit-Reset-After when a 429 body names no retry_after', async () => {
    discord.traffic.failNext(sendRoute, {
      status: 429,
      headers: { 'x-ratelimit-reset-after': '2.5', 'retry-after': '3' },
      body: { message: 'You are being rate limited.', global: false },
      offDescription: 'Discord\'s 429 always carries retry_after: this one lacks it, to test SPS\'s fallback '
        + 'to the headers',
    });
    const error = await platformFailure(adapter.publish(partOf('Reset after')));

    expect(error.retryAfterMs).toBe(2_500);
  });

  it('retries a channel\'s write limit (20028) as a wait', async () => {
    discord.traffic.failNext(sendRoute, {
      status: 429,
      headers: { 'retry-after': '2' },
      body: { message: 'The write action you are performing on the channel has hit the write rate limit', code: 20_028,
        retry_after: 1.5, global: false },
    });
    const error = await platformFailure(adapter.publish(partOf('Write limit')));

    expect(error.kind).toBe('retryable');
    expect(error.retryAfterMs).toBe(1_500);
  });

  it('waits for the reset of a bucket the bot spent (one per route and channel, as Discord\'s)', async () => {
    discord.traffic.limit = 2;
    discord.traffic.windowMs = 5_000;
    try {
      await adapter.publish(partOf('Bucket 1', { channel: adaChannels.news }));
      await adapter.publish(partOf('Bucket 2', { channel: adaChannels.news }));
      const error = await platformFailure(adapter.publish(partOf('Bucket 3', { channel: adaChannels.news })));

      expect(error.kind).toBe('retryable');
      expect(error.retryAfterMs).toBeGreaterThan(3_000);
      expect(error.retryAfterMs).toBeLessThanOrEqual(5_000);
      expect(discord.messages.in(adaChannels.news).map((message) => message.content)).not.toContain('Bucket 3');
    } finally {
      discord.traffic.limit = 50;
      discord.traffic.windowMs = 1_000;
    }
  });
});
