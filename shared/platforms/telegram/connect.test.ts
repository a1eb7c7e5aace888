import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTelegramSimulator,
  type TelegramSimulator,
} from '../../../test/simulators/telegram/telegram-simulator.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { connectWithCredentials } from '../../domain/channels/connect-with-credentials.ts';
import { createOrganization } from '../../domain/organizations/organizations.ts';
import { DomainError } from '../../errors.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { telegramConnect } from './connect.ts';
import { readTelegramCredential } from './credential.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';
import { noCache } from '../../cache/invalidation-bus.ts';

const botToken = '7012345678:AAHk-simulated_token';
const botId = 7012345678;

function contextFor(apiUrl: string): ConnectContext {
  return testConnectContext({ apiUrl, timeoutMs: 5_000 });
}

let simulator: TelegramSimulator;
let context: ConnectContext;

beforeAll(async () => {
  simulator = await startTelegramSimulator();
  context = contextFor(simulator.url);
  simulator.addBot({ token: botToken, id: botId, username: 'sps_poster_bot', firstName: 'SPS poster' });
  simulator.addChat({
    id: -1001234567890,
    type: 'channel',
    title: 'Release notes',
    username: 'release_notes',
    members: new Map([[botId, { status: 'administrator', canPostMessages: true }]]),
  });
  simulator.addChat({
    id: -1009876543210,
    type: 'channel',
    title: 'Read only',
    username: 'read_only_news',
    members: new Map([[botId, { status: 'administrator', canPostMessages: false }]]),
  });
  simulator.addChat({
    id: -1005555555555,
    type: 'supergroup',
    title: 'Team chat',
    members: new Map([[botId, { status: 'administrator' }]]),
  });
});

afterAll(async () => {
  await simulator.close();
});

describe('telegram connect', () => {
  it('reads the channel by @username and keeps its numeric id with the bot token', async () => {
    const account = await telegramConnect.verify({ botToken, chat: '@release_notes' }, context);
    expect(account).toMatchObject({
      accountId: '-1001234567890',
      name: 'Release notes',
      username: '@release_notes',
      picture: null,
      instanceUrl: null,
      refreshToken: null,
      expiresAt: null,
    });
    expect(readTelegramCredential(account.accessToken)).toEqual({ botToken, chatId: '-1001234567890' });
    const member = simulator.received.find((request) => request.path.endsWith('/getChatMember'));
    expect(JSON.parse(member?.text ?? '{}')).toEqual({ chat_id: -1001234567890, user_id: botId });
  });

  it('finds a private group by its numeric id', async () => {
    const account = await telegramConnect.verify({ botToken, chat: '-1005555555555' }, context);
    expect(account).toMatchObject({ accountId: '-1005555555555', name: 'Team chat', username: null });
  });

  it('shows Telegram\'s own refusal of a wrong token', async () => {
    const wrongToken = { botToken: '7012345678:wrong', chat: '@release_notes' };
    const error = await platformFailure(telegramConnect.verify(wrongToken, context));
    expect(error.message).toContain('Unauthorized');
    expect(error.kind).toBe('disconnected');
  });

  it('shows Telegram\'s own refusal of an unknown chat', async () => {
    const error = await platformFailure(telegramConnect.verify({ botToken, chat: '@no_such_channel' }, context));
    expect(error.message).toContain('Bad Request: chat not found');
    expect(error.kind).toBe('permanent');
  });

  it('refuses a channel where the bot may not post', async () => {
    const error = await platformFailure(telegramConnect.verify({ botToken, chat: '@read_only_news' }, context));
    expect(error.message).toContain('not an administrator allowed to post messages');
    expect(error.kind).toBe('permanent');
  });

  it('refuses what is not a bot token before calling Telegram', async () => {
    const before = simulator.received.length;
    const error = await platformFailure(
      telegramConnect.verify({ botToken: 'abc/../x', chat: '@release_notes' }, context),
    );
    expect(error.message).toContain('not a Telegram bot token');
    expect(simulator.received.length).toBe(before);
  });

  it('is retryable when Telegram cannot be reached', async () => {
    const offline = contextFor(await closedOrigin());
    const error = await platformFailure(telegramConnect.verify({ botToken, chat: '@release_notes' }, offline));
    expect(error.kind).toBe('retryable');
  });
});

describe('connecting a Telegram channel', () => {
  let ctx: TestContext;
  let organizationId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    ({ organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'Telegram connectors' }));
  });

  afterAll(async () => {
    await ctx.cleanup();
  });

  const connect = (values: Record<string, string>) =>
    connectWithCredentials({ db: ctx.db, secrets: ctx.secrets, caches: noCache }, telegramConnect, context, {
      organizationId,
      provider: 'telegram',
      values,
    });

  it('saves the channel with its profile and sealed credential, and reconnects it in place', async () => {
    const first = await connect({ botToken, chat: '@release_notes' });
    expect(first.created).toBe(true);
    const saved = await ctx.db.channels.findById(first.id).lean();
    expect(saved).toMatchObject({
      provider: 'telegram',
      accountId: '-1001234567890',
      name: 'Release notes',
      profile: '@release_notes',
    });
    expect(saved?.tokenSealed).not.toContain(botToken);
    const credential = readTelegramCredential(ctx.secrets.open(saved?.tokenSealed ?? ''));
    expect(credential).toEqual({ botToken, chatId: '-1001234567890' });

    const again = await connect({ botToken, chat: '-1001234567890' });
    expect(again).toMatchObject({ id: first.id, created: false });
  });

  it('answers connect_refused with Telegram\'s message and saves nothing', async () => {
    const before = await ctx.db.channels.countDocuments({ organizationId });
    const error: unknown = await connect({ botToken, chat: '@no_such_channel' }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DomainError);
    const message = expect.stringContaining('chat not found') as unknown;
    expect(error).toMatchObject({ code: 'connect_refused', message });
    expect(await ctx.db.channels.countDocuments({ organizationId })).toBe(before);
  });
});
