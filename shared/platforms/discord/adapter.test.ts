import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adaChannels, adaGuild, adaGuildId, discordAdapterFor, memoryMedia, otherChannel, otherGuild, otherGuildId, partOf,
  replyOf,
} from '../../../test/simulators/discord/discord-fixture.ts';
import {
  startDiscordSimulator, type RunningDiscordSimulator,
} from '../../../test/simulators/discord/discord-simulator.ts';
import { multipartParts } from '../../../test/simulators/kit/multipart-form.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import type { PlatformAdapter } from '../kit/platform-adapter.ts';
import { discordNonce } from './discord-send-once.ts';

let discord: RunningDiscordSimulator;
let adapter: PlatformAdapter;

beforeAll(async () => {
  discord = await startDiscordSimulator({ ada: adaGuild(), other: otherGuild() });
  discord.installBot(adaGuildId);
  discord.installBot(otherGuildId);
  adapter = discordAdapterFor(discord);
});

afterAll(async () => {
  await discord.close();
});

const messagesIn = (channelId: string) => discord.messages.in(channelId);
const png = (size: number, seed = 1) => Buffer.alloc(size, seed);

describe('discord adapter: the first part', () => {
  it('posts a message as the bot with the part\'s nonce enforced, and links it in the connected server', async () => {
    const part = partOf('Hello Discord 👋');
    const result = await adapter.publish(part);

    const [message] = messagesIn(adaChannels.general).filter((item) => item.content === 'Hello Discord 👋');
    expect(message?.nonce).toBe(discordNonce(part.idempotencyKey));
    expect(message?.nonce).toHaveLength(25);
    expect(result.releaseId).toBe(`${adaChannels.general}_${message?.id ?? ''}`);
    const link = `https://discord.com/channels/${adaGuildId}/${adaChannels.general}/${message?.id ?? ''}`;
    expect(result.releaseURL).toBe(link);
    const [sent] = discord.requestsTo('POST /channels/:id/messages').slice(-1);
    expect(sent?.headers.authorization).toBe(`Bot ${discord.botToken}`);
    expect(sent?.headers['user-agent']).toMatch(/^DiscordBot \(/);
    expect(JSON.parse(sent?.text ?? '{}')).toEqual({
      content: 'Hello Discord 👋', nonce: discordNonce(part.idempotencyKey), enforce_nonce: true,
    });
    // The send was checkpointed before it went out.
    expect(part.checkpoint.saves).toEqual([{ sentAt: expect.stringMatching(/^\d+$/) as unknown }]);
  });

  it('attaches files as multipart: payload_json describing files[n], alt text as description', async () => {
    const first = memoryMedia('card.png', png(300, 7), { alt: 'A card' });
    const second = memoryMedia('clip.mp4', png(500, 9), { kind: 'video', mimeType: 'video/mp4' });
    await adapter.publish(partOf('With files', {}, { media: [first, second] }));

    const [message] = messagesIn(adaChannels.general).filter((item) => item.content === 'With files');
    const described = message?.attachments
      .map((file) => [file.filename, file.size, file.contentType, file.description]);
    expect(described).toEqual([
      ['card.png', 300, 'image/png', 'A card'],
      ['clip.mp4', 500, 'video/mp4', null],
    ]);
    expect(message?.attachments[0]?.bytes.equals(png(300, 7))).toBe(true);
    const [sent] = discord.requestsTo('POST /channels/:id/messages').slice(-1);
    const parts = sent === undefined ? [] : multipartParts(sent) ?? [];
    expect(parts.map((part) => part.name)).toEqual(['payload_json', 'files[0]', 'files[1]']);
    expect(JSON.parse(parts[0]?.data.toString() ?? '{}')).toMatchObject({
      content: 'With files',
      attachments: [{ id: 0, filename: 'card.png', description: 'A card' }, { id: 1, filename: 'clip.mp4' }],
    });
  });

  it('names every file SPOILER_... when spoiler_media is set', async () => {
    const media = [memoryMedia('secret.png', png(10)), memoryMedia('SPOILER_already.png', png(10))];
    await adapter.publish(partOf('Spoilers', { spoiler_media: true }, { media }));

    const [message] = messagesIn(adaChannels.general).filter((item) => item.content === 'Spoilers');
    expect(message?.attachments.map((file) => file.filename)).toEqual(['SPOILER_secret.png', 'SPOILER_already.png']);
  });

  it('posts in an announcement channel as in a text channel', async () => {
    const result = await adapter.publish(partOf('News', { channel: adaChannels.news }));
    expect(result.releaseId.startsWith(`${adaChannels.news}_`)).toBe(true);
    expect(messagesIn(adaChannels.news).map((item) => item.content)).toEqual(['News']);
  });

  it('makes a forum post named after the first line, with its files, in a forum channel', async () => {
    const media = [memoryMedia('sketch.png', png(40))];
    const part = partOf('Idea: a bigger oven\nDetails follow.', { channel: adaChannels.ideas }, { media });
    const result = await adapter.publish(part);

    const thread = discord.threads.all().find((item) => item.parentId === adaChannels.ideas);
    expect(thread).toMatchObject({ name: 'Idea: a bigger oven', type: 11, ownerId: discord.world.bot.id });
    const [starter] = messagesIn(thread?.id ?? '');
    expect(starter).toMatchObject({ id: thread?.id, content: 'Idea: a bigger oven\nDetails follow.' });
    expect(starter?.attachments.map((file) => file.filename)).toEqual(['sketch.png']);
    expect(result.releaseId).toBe(`${thread?.id ?? ''}_${thread?.id ?? ''}`);
  });

  it('takes thread_name as the forum post\'s title', async () => {
    await adapter.publish(partOf('Body text', { channel: adaChannels.ideas, thread_name: 'Weekly notes' }));
    expect(discord.threads.all().some((item) => item.name === 'Weekly notes' && item.parentId === adaChannels.ideas))
      .toBe(true);
  });

  it('refuses a channel of another server the bot is in, and sends nothing there', async () => {
    const error = await platformFailure(adapter.publish(partOf('Elsewhere', { channel: otherChannel })));

    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/not in the server this channel was connected in/);
    expect(messagesIn(otherChannel)).toHaveLength(0);
  });

  it('refuses a voice channel, naming the kinds of channel that take posts', async () => {
    const error = await platformFailure(adapter.publish(partOf('Hello voice', { channel: adaChannels.voice })));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Discord channel #Lounge takes no posts: pick a text, announcement or forum channel '
      + '(see the channels tool)');
  });

  it('refuses a file over 10 MiB before opening it', async () => {
    let opened = false;
    const large = memoryMedia('huge.png', png(1), {
      size: 10 * 1024 * 1024 + 1,
      open: () => {
        opened = true;
        return Promise.reject(new Error('not to be read'));
      },
    });
    const before = discord.requestsTo('POST /channels/:id/messages').length;
    const error = await platformFailure(adapter.publish(partOf('Too big', {}, { media: [large] })));

    expect(error.message).toBe('huge.png is 10.1 MiB; Discord takes files up to 10 MiB from a bot in any server');
    expect(opened).toBe(false);
    expect(discord.requestsTo('POST /channels/:id/messages')).toHaveLength(before);
  });
});

describe('discord adapter: later parts in a thread', () => {
  it('starts a thread from the first message, named after it, and posts every later part in it', async () => {
    const first = await adapter.publish(partOf('Launch day 🚀\nmore below'));
    const second = replyOf(first.releaseId, 'Part two', {}, { media: [memoryMedia('two.png', png(20))] });
    const secondResult = await adapter.comment(second);
    const third = await adapter.comment(replyOf(secondResult.releaseId, 'Part three'));

    const firstId = first.releaseId.split('_')[1] ?? '';
    const thread = discord.world.channels.get(firstId);
    expect(thread).toMatchObject({ parentId: adaChannels.general, name: 'Launch day 🚀', type: 11 });
    expect(messagesIn(firstId).map((item) => item.content)).toEqual(['Part two', 'Part three']);
    expect(messagesIn(firstId)[0]?.attachments.map((file) => file.filename)).toEqual(['two.png']);
    expect(secondResult.releaseId.startsWith(`${firstId}_`)).toBe(true);
    expect(third.releaseURL).toMatch(new RegExp(`^https://discord.com/channels/${adaGuildId}/${firstId}/\\d+$`));
    // The thread's id is kept before anything is posted into it.
    expect(second.checkpoint.saves[0]).toEqual({ threadId: firstId });
    expect(discord.requestsTo('POST /channels/:id/messages/:id/threads')).toHaveLength(1);
  });

  it('names the thread thread_name when the post sets it', async () => {
    const settings = { thread_name: 'Release notes' };
    const first = await adapter.publish(partOf('v2 is out', settings));
    await adapter.comment(replyOf(first.releaseId, 'Fixes', settings));

    expect(discord.world.channels.get(first.releaseId.split('_')[1] ?? '')?.name).toBe('Release notes');
  });

  it('names the thread after the part when the bot may not read the first message', async () => {
    const settings = { channel: adaChannels.noHistory };
    const first = await adapter.publish(partOf('Unreadable root', settings));
    await adapter.comment(replyOf(first.releaseId, 'Second part names it', settings));

    expect(discord.world.channels.get(first.releaseId.split('_')[1] ?? '')?.name).toBe('Second part names it');
  });

  it('posts a forum post\'s later parts in the post', async () => {
    const settings = { channel: adaChannels.ideas };
    const first = await adapter.publish(partOf('Forum thread start', settings));
    const second = await adapter.comment(replyOf(first.releaseId, 'Forum reply', settings));

    const threadId = first.releaseId.split('_')[0] ?? '';
    expect(messagesIn(threadId).map((item) => item.content)).toEqual(['Forum thread start', 'Forum reply']);
    expect(second.releaseId.startsWith(`${threadId}_`)).toBe(true);
  });
});
