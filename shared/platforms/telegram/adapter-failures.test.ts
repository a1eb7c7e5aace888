import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import {
  startTelegramSimulator, type TelegramSimulator,
} from '../../../test/simulators/telegram/telegram-simulator.ts';
import { addTelegramWorld, channelIn, chats, mediaFrom } from '../../../test/simulators/telegram/telegram-world.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import { createTelegramAdapter } from './adapter.ts';

let simulator: TelegramSimulator;
let adapter: PlatformAdapter;
const channel: ChannelCredentials = channelIn(chats.channel);
const options = { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };

beforeAll(async () => {
  simulator = await startTelegramSimulator();
  addTelegramWorld(simulator);
  adapter = createTelegramAdapter(options, testConnectContext({ apiUrl: simulator.url }).app);
});

afterAll(async () => {
  await simulator.close();
});

function publish(content: string, checkpoint: MemoryCheckpoint, on = channel, media: PublishMedia[] = []) {
  return adapter.publish({ channel: on, content, media, settings: {}, idempotencyKey: 'unused', checkpoint });
}

const messagesWith = (text: string) => simulator.messages.filter((message) => message.text === text);

describe('telegram exactly once', () => {
  it('never sends again after a lost answer: the retry is unconfirmed and the chat holds one message', async () => {
    const checkpoint = memoryCheckpoint();
    simulator.failNext('sendMessage', { lose: true });
    const lost = await platformFailure(publish('Lost answer', checkpoint));
    expect(lost.kind).toBe('retryable');
    expect(checkpoint.values.sentAt).toMatch(/^\d+$/);

    const calls = simulator.calls('sendMessage').length;
    const retry = await platformFailure(publish('Lost answer', checkpoint));
    expect(retry.kind).toBe('unconfirmed');
    expect(retry.message).toContain('Telegram may have posted this message');
    expect(retry.message).toContain('PUT /posts/:id/release-id');
    expect(simulator.calls('sendMessage')).toHaveLength(calls);
    expect(messagesWith('Lost answer')).toHaveLength(1);
  });

  it('sends again after a refusal, which made nothing: the checkpoint is cleared', async () => {
    const checkpoint = memoryCheckpoint();
    simulator.failNext('sendMessage', { refuse: { code: 400, description: 'Bad Request: message text is empty' } });
    const refused = await platformFailure(publish('Refused first', checkpoint));
    expect(refused.kind).toBe('permanent');
    expect(checkpoint.values.sentAt).toBe('');
    await publish('Refused first', checkpoint);
    expect(messagesWith('Refused first')).toHaveLength(1);
  });

  it('keeps the checkpoint after a 5xx, whose request may have run behind Telegram\'s front', async () => {
    const checkpoint = memoryCheckpoint();
    simulator.failNext('sendMessage', { refuse: { code: 502, description: 'Bad Gateway' } });
    expect((await platformFailure(publish('Behind the front', checkpoint))).kind).toBe('retryable');
    expect(checkpoint.values.sentAt).toMatch(/^\d+$/);
    expect((await platformFailure(publish('Behind the front', checkpoint))).kind).toBe('unconfirmed');
  });

  it('clears the checkpoint when Telegram could not be reached at all', async () => {
    const offline = createTelegramAdapter(options, testConnectContext({ apiUrl: await closedOrigin() }).app);
    const checkpoint = memoryCheckpoint();
    const input = { channel, content: 'Offline', media: [], settings: {}, idempotencyKey: 'unused', checkpoint };
    const error = await platformFailure(offline.publish(input));
    expect(error.kind).toBe('retryable');
    expect(checkpoint.values.sentAt).toBe('');
  });

  it('clears the checkpoint when a file cannot be read before the request leaves', async () => {
    const checkpoint = memoryCheckpoint();
    const broken: PublishMedia = {
      ...mediaFrom('image', samplePng(), 'gone.png'),
      open: () => Promise.reject(new Error('the stored file is gone')),
    };
    const error = await platformFailure(publish('Unreadable file', checkpoint, channel, [broken]));
    expect(error.kind).toBe('retryable');
    expect(error.message).toContain('nothing reached Telegram');
    expect(checkpoint.values.sentAt).toBe('');
  });

  it('clears the checkpoint when a file breaks off mid-upload: Telegram acts on no half a body', async () => {
    const checkpoint = memoryCheckpoint();
    const failing: PublishMedia = {
      ...mediaFrom('video', Buffer.alloc(64), 'half.mp4'),
      open: () => Promise.resolve(Readable.from((async function* half() {
        yield Buffer.from('half a file');
        await Promise.resolve();
        throw new Error('storage dropped the read');
      })())),
    };
    const album = [mediaFrom('image', samplePng(), 'whole.png'), failing];
    const error = await platformFailure(publish('Half a file', checkpoint, channel, album));
    expect(error.kind).toBe('retryable');
    expect(error.message).toContain('could not read a file');
    expect(checkpoint.values.sentAt).toBe('');
    expect(messagesWith('Half a file')).toHaveLength(0);
  });
});

describe('telegram refusals', () => {
  it('waits for flood control\'s retry_after, and the retry sends since nothing was posted', async () => {
    const checkpoint = memoryCheckpoint();
    simulator.failNext('sendMessage', { retryAfter: 3 });
    const throttled = await platformFailure(publish('Throttled', checkpoint));
    expect(throttled).toMatchObject({ kind: 'retryable', retryAfterMs: 3_000, httpStatus: 429 });
    expect(throttled.message).toBe('Telegram: Too Many Requests: retry after 3');
    expect(checkpoint.values.sentAt).toBe('');
    await publish('Throttled', checkpoint);
    expect(messagesWith('Throttled')).toHaveLength(1);
  });

  it('flags the channel when the bot was kicked from the chat, with Telegram\'s words', async () => {
    const error = await platformFailure(publish('Kicked', memoryCheckpoint(), channelIn(chats.kicked)));
    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Telegram: Forbidden: bot was kicked from the channel chat');
  });

  it('flags the channel when @BotFather revoked the token', async () => {
    const revoked = channelIn(chats.channel, '7012345678:revoked');
    const error = await platformFailure(publish('Revoked', memoryCheckpoint(), revoked));
    expect(error).toMatchObject({ kind: 'disconnected', message: 'Telegram: Unauthorized', httpStatus: 401 });
  });

  it('refuses media in a chat that does not let the bot send them, without flagging the channel', async () => {
    const textOnly = channelIn(chats.textOnly);
    const photo = [mediaFrom('image', samplePng(), 'no.png')];
    const error = await platformFailure(publish('No photos here', memoryCheckpoint(), textOnly, photo));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Telegram: Forbidden: not enough rights to send photos to the chat');
    await publish('Text is fine', memoryCheckpoint(), textOnly);
    expect(messagesWith('Text is fine')).toHaveLength(1);
  });

  it('refuses what Telegram refuses about the message, with its words', async () => {
    const tooLong = await platformFailure(publish('a'.repeat(4097), memoryCheckpoint()));
    expect(tooLong).toMatchObject({ kind: 'permanent', message: 'Telegram: Bad Request: message is too long' });
    const caption = await platformFailure(
      publish('c'.repeat(1025), memoryCheckpoint(), channel, [mediaFrom('image', samplePng(), 'long.png')]),
    );
    expect(caption.message).toBe('Telegram: Bad Request: message caption is too long');
    const gone = await platformFailure(publish('Nowhere', memoryCheckpoint(), channelIn(-1009999999999)));
    expect(gone).toMatchObject({ kind: 'permanent', message: 'Telegram: Bad Request: chat not found' });
  });
});
