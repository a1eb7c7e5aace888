import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { multipartParts } from '../../../test/simulators/kit/multipart-form.ts';
import {
  startTelegramSimulator, type TelegramSimulator,
} from '../../../test/simulators/telegram/telegram-simulator.ts';
import {
  addTelegramWorld, bot, channelIn, chats, mediaFrom,
} from '../../../test/simulators/telegram/telegram-world.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import { createTelegramAdapter } from './adapter.ts';
import { telegramConnect } from './connect.ts';

const png = samplePng();
const mp4 = sampleMp4(40_000);

let simulator: TelegramSimulator;
let adapter: PlatformAdapter;
/** The public channel, connected the way the dashboard connects it. */
let channel: ChannelCredentials;

beforeAll(async () => {
  simulator = await startTelegramSimulator();
  addTelegramWorld(simulator);
  const context = testConnectContext({ apiUrl: simulator.url });
  const account = await telegramConnect.verify({ botToken: bot.token, chat: '@release_notes' }, context);
  channel = { channelId: 'c1', accessToken: account.accessToken, instanceUrl: null };
  adapter = createTelegramAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, context.app);
});

afterAll(async () => {
  await simulator.close();
});

interface PartInput {
  media?: PublishMedia[];
  settings?: Record<string, unknown>;
  checkpoint?: MemoryCheckpoint;
  on?: ChannelCredentials;
}

function publish(content: string, extra: PartInput = {}) {
  return adapter.publish({
    channel: extra.on ?? channel,
    content,
    media: extra.media ?? [],
    settings: extra.settings ?? {},
    idempotencyKey: 'unused-by-telegram',
    checkpoint: extra.checkpoint ?? memoryCheckpoint(),
  });
}

function reply(content: string, parentReleaseId: string, extra: PartInput = {}) {
  return adapter.comment({
    channel: extra.on ?? channel,
    content,
    media: extra.media ?? [],
    settings: extra.settings ?? {},
    idempotencyKey: 'unused-by-telegram',
    checkpoint: extra.checkpoint ?? memoryCheckpoint(),
    parentReleaseId,
  });
}

const messagesWith = (text: string) => simulator.messages.filter((message) => message.text === text);
const lastCall = (method: string) => simulator.calls(method).at(-1);

/** The multipart form of the last call of `method`, as the simulator received it. */
function formOf(method: string) {
  const call = lastCall(method);
  if (call === undefined) throw new Error(`no ${method} call reached the simulator`);
  return multipartParts(call) ?? [];
}

describe('telegram text messages', () => {
  it('sends the text as plain text to the connected chat and names the message by chat and id', async () => {
    const result = await publish('Release 2.0 is out *now*', {
      settings: { disable_notification: true, protect_content: true, disable_link_preview: true },
    });
    const [sent] = messagesWith('Release 2.0 is out *now*');
    expect(sent).toMatchObject({ chatId: chats.channel, kind: 'text', replyTo: null });
    expect(result).toEqual({
      releaseId: `${String(chats.channel)}_${String(sent?.messageId)}`,
      releaseURL: `https://t.me/release_notes/${String(sent?.messageId)}`,
    });
    const call = lastCall('sendMessage');
    expect(call?.path).toBe(`/bot${bot.token}/sendMessage`);
    expect(JSON.parse(call?.text ?? '{}')).toEqual({
      chat_id: String(chats.channel),
      text: 'Release 2.0 is out *now*',
      disable_notification: true,
      protect_content: true,
      link_preview_options: { is_disabled: true },
    });
  });

  it('answers each later part with reply_parameters to the part before it', async () => {
    const first = await publish('Thread 1/3');
    const second = await reply('Thread 2/3', first.releaseId);
    const third = await reply('Thread 3/3', second.releaseId);
    const [one, two, three] = ['Thread 1/3', 'Thread 2/3', 'Thread 3/3'].map((text) => messagesWith(text)[0]);
    expect(two?.replyTo).toBe(one?.messageId);
    expect(three?.replyTo).toBe(two?.messageId);
    expect(third.releaseId).toBe(`${String(chats.channel)}_${String(three?.messageId)}`);
    expect(JSON.parse(lastCall('sendMessage')?.text ?? '{}')).toMatchObject({
      reply_parameters: { message_id: two?.messageId },
    });
  });

  it('takes a bare message id, copied from a link, as a message of the connected chat', async () => {
    const first = await publish('Linked by hand');
    const messageId = first.releaseId.split('_')[1] ?? '';
    await reply('Reply to a bare id', messageId);
    expect(messagesWith('Reply to a bare id')[0]?.replyTo).toBe(Number(messageId));
  });

  it('refuses a reply to a message that is not in the chat with Telegram\'s words', async () => {
    const error = await platformFailure(reply('Orphan', `${String(chats.channel)}_999999`));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Telegram: Bad Request: message to be replied not found');
    expect(messagesWith('Orphan')).toHaveLength(0);
  });

  it('links private channels through t.me/c and gives basic groups, which have no links, none', async () => {
    const hidden = await publish('In private', { on: channelIn(chats.privateChannel) });
    const [sent] = messagesWith('In private');
    expect(hidden.releaseURL).toBe(`https://t.me/c/2222222222/${String(sent?.messageId)}`);
    const basic = await publish('In a basic group', { on: channelIn(chats.basicGroup) });
    expect(basic).toMatchObject({ releaseId: `${String(chats.basicGroup)}_1`, releaseURL: '' });
  });

  it('follows a group upgraded to a supergroup, and replies there', async () => {
    const upgraded = channelIn(chats.upgradedGroup);
    const first = await publish('After the upgrade', { on: upgraded });
    const [sent] = messagesWith('After the upgrade');
    expect(sent?.chatId).toBe(chats.supergroup);
    expect(first.releaseId).toBe(`${String(chats.supergroup)}_${String(sent?.messageId)}`);
    const chatIds = simulator.calls('sendMessage').slice(-2)
      .map((call) => (JSON.parse(call.text) as { chat_id: string }).chat_id);
    expect(chatIds).toEqual([String(chats.upgradedGroup), String(chats.supergroup)]);

    const before = simulator.calls('sendMessage').length;
    await reply('Reply after the upgrade', first.releaseId, { on: upgraded });
    // The reply goes straight to the parent's chat: no second refused call.
    expect(simulator.calls('sendMessage').length).toBe(before + 1);
    expect(messagesWith('Reply after the upgrade')[0]).toMatchObject({
      chatId: chats.supergroup, replyTo: sent?.messageId,
    });
  });
});

describe('telegram media', () => {
  it('sends one photo with sendPhoto, the file streamed in a multipart body and the text as caption', async () => {
    const settings = { has_spoiler: true, show_caption_above_media: true, message_thread_id: 7 };
    await publish('A photo', { media: [mediaFrom('image', png, 'card.png')], settings });
    const [sent] = messagesWith('A photo');
    expect(sent).toMatchObject({ kind: 'photo', options: { has_spoiler: true, show_caption_above_media: true } });
    expect(sent?.options).toMatchObject({ message_thread_id: 7 });
    expect(sent?.file?.bytes.equals(png)).toBe(true);
    expect(sent?.file).toMatchObject({ fileName: 'card.png', contentType: 'image/png' });
    expect(formOf('sendPhoto').map((part) => part.name).sort()).toEqual(
      ['caption', 'chat_id', 'has_spoiler', 'message_thread_id', 'photo', 'show_caption_above_media'],
    );
  });

  it('sends one video with sendVideo, streamable', async () => {
    const result = await publish('A video', { media: [mediaFrom('video', mp4, 'clip.mp4')] });
    const [sent] = messagesWith('A video');
    expect(sent).toMatchObject({ kind: 'video', options: { supports_streaming: true } });
    expect(sent?.file?.bytes.equals(mp4)).toBe(true);
    expect(result.releaseId).toBe(`${String(chats.channel)}_${String(sent?.messageId)}`);
  });

  it('sends a photo without text without a caption', async () => {
    await publish('', { media: [mediaFrom('image', png, 'bare.png')] });
    expect(formOf('sendPhoto').some((part) => part.name === 'caption')).toBe(false);
  });

  it('sends 2 to 10 files as one album by attach://, the caption on the first; replies answer its first', async () => {
    const media = [
      mediaFrom('image', png, 'one.png'), mediaFrom('video', mp4, 'two.mp4'), mediaFrom('image', png, 'three.png'),
    ];
    const first = await publish('Opening');
    const album = await reply('An album', first.releaseId, { media });
    const items = simulator.messages.filter((message) => message.mediaGroupId !== null).slice(-3);
    expect(items.map((item) => [item.kind, item.file?.fileName, item.text])).toEqual([
      ['photo', 'one.png', 'An album'], ['video', 'two.mp4', null], ['photo', 'three.png', null],
    ]);
    expect(new Set(items.map((item) => item.mediaGroupId)).size).toBe(1);
    expect(items.every((item) => item.replyTo === messagesWith('Opening')[0]?.messageId)).toBe(true);
    expect(items[1]?.file?.bytes.equals(mp4)).toBe(true);
    expect(album.releaseId).toBe(`${String(chats.channel)}_${String(items[0]?.messageId)}`);

    const parts = formOf('sendMediaGroup');
    expect(JSON.parse(parts.find((part) => part.name === 'media')?.data.toString() ?? '[]')).toEqual([
      { type: 'photo', media: 'attach://file0', caption: 'An album' },
      { type: 'video', media: 'attach://file1', supports_streaming: true },
      { type: 'photo', media: 'attach://file2' },
    ]);
    const files = parts.filter((part) => part.fileName !== null);
    expect(files.map((part) => part.name)).toEqual(['file0', 'file1', 'file2']);

    await reply('After the album', album.releaseId);
    expect(messagesWith('After the album')[0]?.replyTo).toBe(items[0]?.messageId);
  });
});

describe('telegram checkpoints', () => {
  it('checkpoints the send before it and the message right after it', async () => {
    const checkpoint = memoryCheckpoint();
    const result = await publish('Checkpointed', { checkpoint });
    expect(checkpoint.saves[0]).toEqual({ sentAt: expect.stringMatching(/^\d+$/) as unknown });
    expect(checkpoint.saves[1]).toEqual({ releaseId: result.releaseId, releaseURL: result.releaseURL });
  });

  it('takes the checkpointed message on a retry instead of sending again', async () => {
    const checkpoint = memoryCheckpoint({
      sentAt: '1760000000000', releaseId: '-1001234567890_5', releaseURL: 'https://t.me/release_notes/5',
    });
    const before = simulator.received.length;
    const result = await publish('Already sent', { checkpoint });
    expect(result).toEqual({ releaseId: '-1001234567890_5', releaseURL: 'https://t.me/release_notes/5' });
    expect(simulator.received.length).toBe(before);
  });
});
