import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import {
  startTelegramSimulator, type TelegramSimulator,
} from '../../../test/simulators/telegram/telegram-simulator.ts';
import { addTelegramWorld, bot, channelIn, chats } from '../../../test/simulators/telegram/telegram-world.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { PlatformAdapter, ToolHandler } from '../kit/platform-adapter.ts';
import { createTelegramAdapter } from './adapter.ts';
import { telegram } from './definition.ts';

let simulator: TelegramSimulator;
let adapter: PlatformAdapter;
const channel = channelIn(chats.channel);

beforeAll(async () => {
  simulator = await startTelegramSimulator();
  addTelegramWorld(simulator);
  const options = { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
  adapter = createTelegramAdapter(options, testConnectContext({ apiUrl: simulator.url }).app);
});

afterAll(async () => {
  await simulator.close();
});

function tool(name: string): ToolHandler {
  const handler = adapter.tools[name];
  if (handler === undefined) throw new Error(`no ${name} tool`);
  return handler;
}

describe('telegram tools', () => {
  it('implements every tool the definition declares', () => {
    expect(Object.keys(adapter.tools).sort()).toEqual(telegram.tools.map((declared) => declared.methodName).sort());
  });

  it('connectChat finds the chat where /connect <code> reached the bot, with the bot\'s rights there', async () => {
    simulator.addUpdate(bot.token, chats.basicGroup, 'hello everyone');
    simulator.addUpdate(bot.token, chats.privateChannel, '/connect A1B2-c3d4');
    const found = await tool('connectChat')(channel, { code: ' A1B2-c3d4 ' });
    expect(found).toEqual({
      chatId: String(chats.privateChannel),
      title: 'Private notes',
      type: 'channel',
      username: null,
      botStatus: 'administrator',
      canPost: true,
      problem: null,
    });
    const [call] = simulator.calls('getUpdates');
    expect(JSON.parse(call?.text ?? '{}')).toEqual({
      allowed_updates: ['message', 'channel_post'], limit: 100, timeout: 0,
    });
  });

  it('connectChat reads a group\'s /connect@bot command and says what the bot lacks there', async () => {
    simulator.addUpdate(bot.token, chats.basicGroup, `/connect@${bot.username} ZZ99`);
    const found = await tool('connectChat')(channel, { code: 'ZZ99' });
    expect(found).toMatchObject({
      chatId: String(chats.basicGroup),
      botStatus: 'member',
      canPost: false,
      problem: `the bot @${bot.username} is not an administrator of this group; promote it there first`,
    });
  });

  it('connectChat says how to send the code when no message carries it, and refuses a malformed code', async () => {
    const missing = await platformFailure(tool('connectChat')(channel, { code: 'NEVER-SENT' }));
    expect(missing).toMatchObject({ kind: 'permanent' });
    expect(missing.message).toContain('send "/connect NEVER-SENT" in the channel or group');
    const before = simulator.received.length;
    const malformed = await platformFailure(tool('connectChat')(channel, { code: 'a b' }));
    expect(malformed).toMatchObject({ kind: 'permanent', message: 'code must be 4 to 64 letters, digits, - or _' });
    expect(simulator.received.length).toBe(before);
  });

  it('connectChat shows Telegram\'s refusal while a webhook takes the bot\'s updates', async () => {
    const hooked = '7012345000:AAHooked';
    simulator.addBot({ token: hooked, id: 7012345000, username: 'hooked_bot', firstName: 'Hooked', webhook: true });
    const error = await platformFailure(tool('connectChat')(channelIn(chats.channel, hooked), { code: 'ABCD' }));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('Conflict: can\'t use getUpdates method while webhook is active');
  });

  it('botRights checks the connected chat, or the chat named', async () => {
    expect(await tool('botRights')(channel, {})).toMatchObject({
      chatId: String(chats.channel), username: '@release_notes', botStatus: 'administrator', canPost: true,
    });
    expect(await tool('botRights')(channel, { chat: String(chats.basicGroup) })).toMatchObject({
      chatId: String(chats.basicGroup), canPost: false,
    });
    const bad = await platformFailure(tool('botRights')(channel, { chat: 'not a chat!' }));
    expect(bad.message).toBe('the chat must be a public @username or a numeric chat id');
  });
});

describe('telegram analytics and recent content', () => {
  it('reads the chat\'s members; messages have no counters in the Bot API', async () => {
    expect(await adapter.analytics?.account(channel)).toEqual([{ label: 'Members', value: 1204 }]);
    expect(JSON.parse(simulator.calls('getChatMemberCount').at(-1)?.text ?? '{}')).toEqual({
      chat_id: String(chats.channel),
    });
    expect(await adapter.analytics?.post(channel, `${String(chats.channel)}_1`)).toEqual([]);
  });

  it('says how to link a message by hand, since a bot cannot read the chat', async () => {
    const error = await platformFailure(adapter.recentContent(channel));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('PUT /posts/:id/release-id');
  });
});
