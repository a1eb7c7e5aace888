import { z } from 'zod';
import { readStandardTokens } from '../kit/oauth2.ts';
import type { OAuthConnect, UserTokens } from '../kit/platform-connect.ts';
import { encodeSlackCredential } from './credential.ts';
import { SlackApi } from './slack-api.ts';
import { channelPage, type SlackChannelPage } from './slack-channels.ts';
import { slackRefusal, slackRefusalBody } from './slack-errors.ts';

/**
 * Bot scopes: post (chat:write) under the name and icon the settings give (chat:write.customize)
 * and upload (files:write); list the public and private channels to pick from (channels:read,
 * groups:read) and join a public one (channels:join); read the channel back (channels:history,
 * groups:history), which is how a retry finds a message whose answer was lost; read a message's
 * reactions for analytics (reactions:read).
 */
export const slackScopes = [
  'chat:write', 'chat:write.customize', 'files:write', 'channels:read', 'groups:read', 'channels:join',
  'channels:history', 'groups:history', 'reactions:read',
] as const;

/** oauth.v2.access: the bot token at the top level, or a refusal sent with HTTP 200. */
function readSlackTokens(body: unknown, now: Date): UserTokens | null {
  const refused = slackRefusalBody.safeParse(body);
  if (refused.success) {
    throw slackRefusal('oauth.v2.access', refused.data, { httpStatus: 200, retryAfterMs: null, canRefresh: false });
  }
  return readStandardTokens(body, now);
}

const authTest = z.object({ ok: z.literal(true), team_id: z.string().min(1), team: z.string() });

/** conversations.list pages with a cursor; a runaway cursor must not hold the connect step forever. */
const maxPages = 20;

async function workspaceChannels(botToken: string, api: SlackApi): Promise<SlackChannelPage['channels']> {
  const channels: SlackChannelPage['channels'] = [];
  let cursor: string | null = null;
  for (let count = 0; count < maxPages; count += 1) {
    const page = await channelPage(api, botToken, cursor);
    channels.push(...page.channels);
    cursor = page.nextCursor;
    if (cursor === null) break;
  }
  return channels;
}

export const slackConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => ({
    platform: 'slack',
    authorizeUrl: `${app.authUrl}/oauth/v2/authorize`,
    tokenUrl: `${app.tokenUrl}/oauth.v2.access`,
    scopes: slackScopes,
    scopeSeparator: ',',
    pkce: false,
    clientAuthentication: 'body',
    readTokens: readSlackTokens,
    // Without token rotation (off unless the app opts in) bot tokens do not expire.
    refreshable: false,
  }),

  async accounts(tokens, context) {
    const botToken = tokens.accessToken;
    const api = new SlackApi(context.app.apiUrl, context.timeoutMs);
    // The token answer names the workspace too, but the kit hands only the tokens over: ask again.
    const team = await api.call(botToken, 'auth.test', { query: {} }, authTest);
    const channels = await workspaceChannels(botToken, api);
    return {
      pick: true,
      accounts: channels.map((channel) => ({
        accountId: `${team.team_id}/${channel.id}`,
        name: `#${channel.name}`,
        username: team.team,
        picture: null,
        instanceUrl: null,
        accessToken: encodeSlackCredential({ botToken, teamId: team.team_id, channelId: channel.id }),
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.expiresAt,
      })),
    };
  },
};
