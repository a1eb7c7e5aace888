import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { formBody } from '../../../test/simulators/kit/simulator-server.ts';
import { startSlackSimulator, type RunningSlackSimulator } from '../../../test/simulators/slack/slack-simulator.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { slackConnect } from './connect.ts';
import { readSlackCredential } from './credential.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';

const redirectUri = 'https://sps.example/channels/callback/slack';


function lastTokenForm(slack: RunningSlackSimulator): URLSearchParams {
  const request = slack.received.filter((received) => received.path === '/api/oauth.v2.access').at(-1);
  expect(request).toBeDefined();
  return request === undefined ? new URLSearchParams() : formBody(request);
}

describe('Slack connect against the simulator', () => {
  let slack: RunningSlackSimulator;
  let context: ConnectContext;

  beforeAll(async () => {
    slack = await startSlackSimulator({
      'user-1': {
        teamId: 'T0ACME',
        teamName: 'Acme',
        channels: [
          { id: 'C01GENERAL', name: 'general', isPrivate: false },
          { id: 'C02ARCHIVE', name: 'old', isPrivate: false, isArchived: true },
          { id: 'G03LAUNCHES', name: 'launch', isPrivate: true, botIsMember: true },
          { id: 'G05BOARDROOM', name: 'board', isPrivate: true },
          { id: 'C04NEWSDESK', name: 'news', isPrivate: false },
        ],
      },
    });
    const { clientId, clientSecret, url } = slack;
    const app = { clientId, clientSecret, botToken: null, apiUrl: `${url}/api`, authUrl: url, tokenUrl: `${url}/api` };
    context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
  });
  afterAll(async () => { await slack.close(); });

  it('asks for the bot scopes, comma-separated: posting, uploads, channels and reading them back', async () => {
    const { authorizeUrl } = await authorizeAndConnect(slackConnect, context, redirectUri);

    expect(authorizeUrl.pathname).toBe('/oauth/v2/authorize');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(slack.clientId);
    expect(authorizeUrl.searchParams.get('scope')).toBe(
      'chat:write,chat:write.customize,files:write,channels:read,groups:read,channels:join,channels:history,'
        + 'groups:history,reactions:read',
    );
    expect(lastTokenForm(slack).get('client_secret')).toBe(slack.clientSecret);
  });

  it('offers every open channel the bot can see, each with the bot token and the channel', async () => {
    const { tokens, authorized } = await authorizeAndConnect(slackConnect, context, redirectUri);

    expect(tokens.expiresAt).toBeNull();
    expect(authorized.pick).toBe(true);
    expect(authorized.accounts.map((account) => [account.accountId, account.name, account.username])).toEqual([
      ['T0ACME/C01GENERAL', '#general', 'Acme'],
      ['T0ACME/G03LAUNCHES', '#launch', 'Acme'],
      ['T0ACME/C04NEWSDESK', '#news', 'Acme'],
    ]);
    expect(readSlackCredential(authorized.accounts[1]?.accessToken ?? '')).toEqual({
      botToken: tokens.accessToken, teamId: 'T0ACME', channelId: 'G03LAUNCHES',
    });
    const listed = slack.received.filter((request) => request.path === '/api/conversations.list').at(-1);
    expect(listed?.headers.authorization).toBe(`Bearer ${tokens.accessToken}`);
    expect(listed?.query.get('types')).toBe('public_channel,private_channel');
  });

  it('shows Slack’s refusal of a wrong client secret, sent with HTTP 200', async () => {
    const wrong = { ...context, app: { ...context.app, clientSecret: 'not-the-secret' } };
    const error = await platformFailure(authorizeAndConnect(slackConnect, wrong, redirectUri));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Slack oauth.v2.access: bad_client_secret');
  });

  it('shows Slack’s refusal of an unknown client id', async () => {
    const wrong = { ...context, app: { ...context.app, clientId: '9999.9999' } };
    const client = { clientId: '9999.9999', clientSecret: slack.clientSecret };
    const exchange = { code: 'any', redirectUri, codeVerifier: null };
    const provider = slackConnect.provider(wrong.app);
    const error = await platformFailure(exchangeAuthorizationCode(provider, client, exchange, { timeoutMs: 2_000 }));

    expect(error.message).toBe('Slack oauth.v2.access: invalid_client_id');
  });

  it('refuses a code used once already', async () => {
    await authorizeAndConnect(slackConnect, context, redirectUri);
    const form = lastTokenForm(slack);
    const client = { clientId: slack.clientId, clientSecret: slack.clientSecret };
    const again = { code: form.get('code') ?? '', redirectUri, codeVerifier: null };
    const provider = slackConnect.provider(context.app);
    const error = await platformFailure(exchangeAuthorizationCode(provider, client, again, { timeoutMs: 2_000 }));

    expect(error.message).toBe('Slack oauth.v2.access: invalid_code');
  });

  it('calls a revoked bot token disconnected, with Slack’s code', async () => {
    const { tokens } = await authorizeAndConnect(slackConnect, context, redirectUri);
    slack.authority.revokeAll();
    const error = await platformFailure(slackConnect.accounts(tokens, context));

    expect(error.kind).toBe('disconnected');
    expect(error.message)
      .toBe('Slack auth.test: the workspace no longer accepts the app\'s token; connect it again (invalid_auth)');
  });
});
