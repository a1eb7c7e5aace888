import { z } from 'zod';
import { readStandardTokens } from '../kit/oauth2.ts';
import type { ConnectContext, OAuthConnect, UserTokens } from '../kit/platform-connect.ts';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { encodeSlackCredential } from './credential.ts';

const provider = 'slack';

/** Bot scopes: post and upload, and list the public and private channels to pick from. */
const scopes = ['chat:write', 'files:write', 'channels:read', 'groups:read'] as const;

/** Slack answers refusals with HTTP 200 `{ok: false, error: "<code>"}`. */
const refusal = z.object({ ok: z.literal(false), error: z.string().min(1) });

/** Codes with which Slack says the token (or the refresh token) no longer works. */
const deadToken = new Set([
  'invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive', 'invalid_refresh_token',
]);

function refusalError(error: string, httpStatus: number | null = 200): PlatformError {
  const kind: PlatformErrorKind = deadToken.has(error) ? 'disconnected' : 'permanent';
  return new PlatformError({ kind, provider, httpStatus, message: error });
}

/** oauth.v2.access: the bot token at the top level, or a refusal sent with HTTP 200. */
function readSlackTokens(body: unknown, now: Date): UserTokens | null {
  const refused = refusal.safeParse(body);
  if (refused.success) throw refusalError(refused.data.error);
  return readStandardTokens(body, now);
}

function slackErrorMessage(body: unknown): string | undefined {
  const refused = refusal.safeParse(body);
  return refused.success ? refused.data.error : undefined;
}

/** One Web API method with the bot token; `ok: false` is a refusal whatever the status. */
async function slackMethod<T>(
  method: string,
  parameters: Record<string, string>,
  schema: z.ZodType<T>,
  botToken: string,
  context: ConnectContext,
): Promise<T> {
  const url = new URL(`${context.app.apiUrl}/${method}`);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  const body = await platformRequest({
    provider,
    serverName: 'Slack',
    method: 'GET',
    url: url.toString(),
    headers: { Authorization: `Bearer ${botToken}` },
    timeoutMs: context.timeoutMs,
    errorMessage: slackErrorMessage,
  });
  const refused = refusal.safeParse(body);
  if (refused.success) throw refusalError(refused.data.error);
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const message = `Slack answered ${method} in a way SPS could not read`;
    throw new PlatformError({ kind: 'permanent', provider, message, cause: parsed.error });
  }
  return parsed.data;
}

const authTest = z.object({ ok: z.literal(true), team_id: z.string().min(1), team: z.string() });

const conversationPage = z.object({
  ok: z.literal(true),
  channels: z.array(z.object({ id: z.string().min(1), name: z.string(), is_private: z.boolean().optional() })),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

/** conversations.list pages with a cursor; a runaway cursor must not hold the connect step forever. */
const maxPages = 20;

async function workspaceChannels(botToken: string, context: ConnectContext) {
  const channels: z.infer<typeof conversationPage>['channels'] = [];
  let cursor = '';
  for (let count = 0; count < maxPages; count += 1) {
    const parameters = {
      types: 'public_channel,private_channel',
      exclude_archived: 'true',
      limit: '200',
      ...(cursor === '' ? {} : { cursor }),
    };
    const page = await slackMethod('conversations.list', parameters, conversationPage, botToken, context);
    channels.push(...page.channels);
    cursor = page.response_metadata?.next_cursor ?? '';
    if (cursor === '') break;
  }
  return channels;
}

export const slackConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => ({
    platform: provider,
    authorizeUrl: `${app.authUrl}/oauth/v2/authorize`,
    tokenUrl: `${app.tokenUrl}/oauth.v2.access`,
    scopes,
    scopeSeparator: ',',
    pkce: false,
    clientAuthentication: 'body',
    readTokens: readSlackTokens,
    // Without token rotation (off unless the app opts in) bot tokens do not expire.
    refreshable: false,
  }),

  async accounts(tokens, context) {
    const botToken = tokens.accessToken;
    // The token answer names the workspace too, but the kit hands only the tokens over: ask again.
    const team = await slackMethod('auth.test', {}, authTest, botToken, context);
    const channels = await workspaceChannels(botToken, context);
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
