import { OAuthAuthority } from '../kit/oauth-authority.ts';
import {
  bearerToken, formBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for Slack's OAuth v2 (bot install) and the Web API methods connecting uses:
 * - slack.com `GET /oauth/v2/authorize` with comma-separated bot scopes;
 * - `POST /api/oauth.v2.access` with the client id and secret in the form or as Basic, answering
 *   `{ok, access_token, token_type: "bot", scope, bot_user_id, app_id, team: {id, name}, ...}`;
 *   bot tokens do not expire (token rotation off, Slack's default);
 * - `GET /api/auth.test` and `GET /api/conversations.list` (cursor paging) with a Bearer token.
 * Every refusal is HTTP 200 `{ok: false, error: "<code>"}`, with Slack's codes: `invalid_client_id`,
 * `bad_client_secret`, `invalid_code`, `bad_redirect_uri`, `invalid_auth`, `not_authed`.
 * Facts: /work/shared/platforms/open-and-community.md 9.1, 9.5 and 9.8.
 */
export interface SimulatedSlackChannel {
  id: string;
  name: string;
  isPrivate: boolean;
  isArchived?: boolean;
}

export interface SimulatedSlackWorkspace {
  teamId: string;
  teamName: string;
  channels: SimulatedSlackChannel[];
}

export interface RunningSlackSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
}

const clientId = '1111111111.2222222222';
const clientSecret = 'slack-simulated-secret';

/** A small page so SPS's cursor paging is exercised. */
const pageSize = 2;

const refused = (error: string): SimulatedAnswer => ({ status: 200, body: { ok: false, error } });

/** The authority's RFC 6749 refusals in Slack's words. */
function slackTokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') return refused('bad_client_secret');
  if (error === 'invalid_grant') return refused(/redirect_uri/.test(description) ? 'bad_redirect_uri' : 'invalid_code');
  if (error === 'unsupported_grant_type') return refused('invalid_grant_type');
  return refused('invalid_arguments');
}

/** Slack names an unknown client id before it looks at the secret. */
function presentedClientId(request: SimulatedRequest): string | null {
  const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (basic !== undefined) return decodeURIComponent(Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? '');
  return formBody(request).get('client_id');
}

function conversations(request: SimulatedRequest, workspace: SimulatedSlackWorkspace): SimulatedAnswer {
  const types = (request.query.get('types') ?? 'public_channel').split(',');
  const excludeArchived = request.query.get('exclude_archived') === 'true';
  const listed = workspace.channels.filter((channel) =>
    types.includes(channel.isPrivate ? 'private_channel' : 'public_channel')
    && !(excludeArchived && channel.isArchived === true));
  const start = Number(request.query.get('cursor') ?? '0');
  const next = start + pageSize < listed.length ? String(start + pageSize) : '';
  const channels = listed.slice(start, start + pageSize).map((channel) => ({
    id: channel.id,
    name: channel.name,
    is_channel: !channel.isPrivate,
    is_private: channel.isPrivate,
    is_archived: channel.isArchived === true,
    is_member: false,
  }));
  return { status: 200, body: { ok: true, channels, response_metadata: { next_cursor: next } } };
}

/** Workspaces are keyed by the id the authority hands out (`authority.consentingUser`). */
export async function startSlackSimulator(
  workspaces: Record<string, SimulatedSlackWorkspace>,
): Promise<RunningSlackSimulator> {
  const authority: OAuthAuthority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'basic-or-body',
    requirePkce: false,
    knownScopes: [
      'chat:write', 'chat:write.public', 'chat:write.customize', 'files:write', 'channels:read', 'groups:read',
      'channels:join', 'users:read',
    ],
    scopeSeparator: ',',
    // Bot tokens without rotation never expire: ten years stands for that here.
    accessTokenSeconds: 10 * 365 * 86_400,
    refreshTokens: 'none',
    tokenError: slackTokenError,
    tokenAnswer: (tokens) => {
      const workspace = workspaces[authority.userOf(tokens.accessToken) ?? ''];
      return {
        ok: true,
        app_id: 'A0SIMULATED',
        authed_user: { id: 'U0INSTALLER' },
        scope: tokens.scope.split(' ').join(','),
        token_type: 'bot',
        access_token: tokens.accessToken,
        bot_user_id: 'U0BOT',
        team: { id: workspace?.teamId ?? 'T0UNKNOWN', name: workspace?.teamName ?? '' },
        enterprise: null,
        is_enterprise_install: false,
      };
    },
  });

  const server = await startSimulatorServer((request) => {
    if (request.path === '/oauth/v2/authorize' && request.method === 'GET') return authority.authorize(request);
    if (request.path === '/api/oauth.v2.access') {
      if (presentedClientId(request) !== clientId) return refused('invalid_client_id');
      return authority.token(request);
    }
    if (!request.path.startsWith('/api/')) return { status: 404, body: 'Not Found' };
    const token = bearerToken(request);
    if (token === null) return refused('not_authed');
    const workspace = workspaces[authority.userOf(token) ?? ''];
    if (workspace === undefined) return refused('invalid_auth');
    if (request.path === '/api/auth.test') {
      const url = `https://${workspace.teamName.toLowerCase().replace(/\W+/g, '')}.slack.com/`;
      const identity = { team: workspace.teamName, user: 'sps', team_id: workspace.teamId, user_id: 'U0BOT' };
      return { status: 200, body: { ok: true, url, ...identity, bot_id: 'B0BOT' } };
    }
    if (request.path === '/api/conversations.list') return conversations(request, workspace);
    return refused('unknown_method');
  }, refused('unknown_method'));
  return { ...server, authority, clientId, clientSecret };
}
