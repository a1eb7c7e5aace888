import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startDiscordSimulator,
  type RunningDiscordSimulator,
} from '../../../test/simulators/discord/discord-simulator.ts';
import { authorizeAndConnect, refreshWith } from '../../../test/simulators/kit/oauth-dance.ts';
import { formBody } from '../../../test/simulators/kit/simulator-server.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { discordConnect } from './connect.ts';
import { readDiscordCredential } from './credential.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';

const redirectUri = 'https://sps.example/channels/callback/discord';

describe('Discord connect against the simulator', () => {
  let discord: RunningDiscordSimulator;
  let context: ConnectContext;
  const connect = discordConnect;
  const withBotToken = (botToken: string | null) => ({ ...context, app: { ...context.app, botToken } });

  beforeAll(async () => {
    discord = await startDiscordSimulator({
      'user-1': {
        id: '41771983423143937',
        name: 'Ada’s server',
        icon: 'a1b2c3',
        channels: [
          { id: '900', type: 4, name: 'Text Channels' },
          { id: '901', type: 0, name: 'general' },
          { id: '902', type: 2, name: 'voice' },
          { id: '903', type: 5, name: 'announcements' },
        ],
      },
    });
    const { clientId, clientSecret, url } = discord;
    context = testConnectContext({
      clientId,
      clientSecret,
      botToken: discord.botToken,
      apiUrl: `${url}/api`,
      authUrl: url,
    });
  });
  afterAll(async () => {
    await discord.close();
  });

  it('asks to add the bot with the permissions posting needs', async () => {
    const { authorizeUrl } = await authorizeAndConnect(connect, context, redirectUri);

    expect(authorizeUrl.pathname).toBe('/oauth2/authorize');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(discord.clientId);
    expect(authorizeUrl.searchParams.get('scope')).toBe('bot identify guilds');
    // View, send, attach, read history, create public threads, send in threads.
    expect(authorizeUrl.searchParams.get('permissions')).toBe(String(309_237_746_688));
    expect(authorizeUrl.searchParams.get('integration_type')).toBe('0');
    const exchange = discord.received.find((request) => request.path === '/api/oauth2/token');
    const basic = Buffer.from(`${discord.clientId}:${discord.clientSecret}`).toString('base64');
    expect(exchange?.headers.authorization).toBe(`Basic ${basic}`);
  });

  it('offers the text and announcement channels of the server the bot joined, read with the bot token', async () => {
    const { authorized } = await authorizeAndConnect(connect, context, redirectUri);

    expect(authorized.pick).toBe(true);
    expect(authorized.accounts.map((account) => [account.accountId, account.name])).toEqual([
      ['901', '#general'],
      ['903', '#announcements'],
    ]);
    expect(authorized.accounts[0]).toMatchObject({
      username: 'Ada’s server',
      picture: 'https://cdn.discordapp.com/icons/41771983423143937/a1b2c3.png',
      refreshToken: null,
      expiresAt: null,
    });
    expect(readDiscordCredential(authorized.accounts[1]?.accessToken ?? '')).toEqual({
      guildId: '41771983423143937',
      channelId: '903',
    });
    expect(discord.received.at(-1)?.headers.authorization).toBe(`Bot ${discord.botToken}`);
  });

  it('says so when the installation has no bot token', async () => {
    const error = await platformFailure(authorizeAndConnect(connect, withBotToken(null), redirectUri));

    expect(error.message).toMatch(/DISCORD_BOT_TOKEN/);
  });

  it('shows Discord’s refusal of a wrong bot token as the operator’s to fix', async () => {
    const error = await platformFailure(authorizeAndConnect(connect, withBotToken('wrong'), redirectUri));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toMatch(/^Discord refused the bot token of this SPS installation \(401: Unauthorized\)/);
    expect(error.message).toContain('DISCORD_BOT_TOKEN');
  });

  it('shows Discord’s refusal of a wrong client secret', async () => {
    const wrong = { ...context, app: { ...context.app, clientSecret: 'not-the-secret' } };
    const error = await platformFailure(authorizeAndConnect(connect, wrong, redirectUri));

    expect(error.httpStatus).toBe(401);
    expect(error.message).toBe('invalid_client');
  });

  it('refuses a code used once already', async () => {
    await authorizeAndConnect(connect, context, redirectUri);
    const used = discord.received.filter((request) => request.path === '/api/oauth2/token').at(-1);
    const code = used === undefined ? '' : (formBody(used).get('code') ?? '');
    const client = { clientId: discord.clientId, clientSecret: discord.clientSecret };
    const provider = connect.provider(context.app);
    const again = { code, redirectUri, codeVerifier: null };
    const error = await platformFailure(exchangeAuthorizationCode(provider, client, again, { timeoutMs: 2_000 }));

    expect(error.message).toBe('Invalid "code" in request. (invalid_grant)');
  });

  it('renews the user’s tokens, and the rotated refresh token cannot be spent twice', async () => {
    const { tokens } = await authorizeAndConnect(connect, context, redirectUri);
    const renewed = await refreshWith(connect, context, tokens.refreshToken ?? '');

    expect(renewed.accessToken).not.toBe(tokens.accessToken);
    expect(renewed.refreshToken).not.toBe(tokens.refreshToken);
    expect((await platformFailure(refreshWith(connect, context, tokens.refreshToken ?? ''))).kind).toBe(
      'disconnected',
    );
  });

  it('calls an unknown refresh token disconnected', async () => {
    const error = await platformFailure(refreshWith(connect, context, 'rt-unknown'));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('invalid_grant');
  });
});
