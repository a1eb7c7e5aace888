import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTelegramSimulator, type TelegramSimulator,
} from '../../../test/simulators/telegram/telegram-simulator.ts';
import { addTelegramWorld, channelIn, chats } from '../../../test/simulators/telegram/telegram-world.ts';
import { testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createTelegramAdapter } from './adapter.ts';

let simulator: TelegramSimulator;
let adapter: PlatformAdapter;

beforeAll(async () => {
  simulator = await startTelegramSimulator();
  addTelegramWorld(simulator);
  const context = testConnectContext({ apiUrl: simulator.url });
  adapter = createTelegramAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, context.app);
});

afterAll(async () => {
  await simulator.close();
});

const part = (channel: ChannelCredentials, content: string) =>
  ({ channel, content, media: [], settings: {}, idempotencyKey: 'unused', checkpoint: memoryCheckpoint() });
const sentWith = (text: string) => simulator.messages.filter((message) => message.text === text);

describe('Telegram adapter: removing messages with deleteMessage', () => {
  it('deletes the reply, then the channel post; a second removal finds it gone', async () => {
    const channel = channelIn(chats.channel);
    const root = await adapter.publish(part(channel, 'Telegram, soon gone'));
    const reply = await adapter.comment({ ...part(channel, 'Its reply'), parentReleaseId: root.releaseId });
    await adapter.remove?.(channel, { releaseId: reply.releaseId, settings: {} });
    await adapter.remove?.(channel, { releaseId: root.releaseId, settings: {} });
    expect([...sentWith('Telegram, soon gone'), ...sentWith('Its reply')]).toEqual([]);
    await expect(adapter.remove?.(channel, { releaseId: root.releaseId, settings: {} })).resolves.toBeUndefined();
  });

  it('refuses, as permanent, a group message older than 48 hours', async () => {
    const channel = channelIn(chats.supergroup);
    const old = await adapter.publish(part(channel, 'Said long ago'));
    const [message] = sentWith('Said long ago');
    if (message === undefined) throw new Error('the message was sent');
    Object.assign(message, { at: Date.now() - 49 * 3600_000 });
    const refusal = await adapter.remove?.(channel, { releaseId: old.releaseId, settings: {} })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PlatformError);
    expect((refusal as PlatformError).kind).toBe('permanent');
    expect(sentWith('Said long ago')).toHaveLength(1);
  });
});
