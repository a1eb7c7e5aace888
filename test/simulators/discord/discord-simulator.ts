import { OAuthAuthority } from '../kit/oauth-authority.ts';
import { startSimulatorServer, type RunningSimulator, type SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * A local stand-in for Discord's bot install and the channel list connecting reads:
 * - discord.com `GET /oauth2/authorize` (space-separated scopes, no PKCE);
 * - `POST /api/oauth2/token` with the client's id and secret as Basic or in the form; user
 *   tokens last a week and their refresh tokens rotate; the answer to a code exchange whose
 *   authorization held the `bot` scope carries the `guild` the bot was added to, which from
 *   then on counts the bot as a member; refusals are `{error[, error_description]}`;
 * - `GET /api/v10/guilds/{id}/channels` with `Authorization: Bot <token>`: 401
 *   `{message: "401: Unauthorized", code: 0}` for another token, 403 `Missing Access` (50001)
 *   for a server the bot is not in, 404 `Unknown Guild` (10004).
 * Facts: /work/shared/platforms/open-and-community.md 8.1, 8.5 and 8.8.
 */
export interface SimulatedDiscordChannel {
  id: string;
  /** 0 text, 2 voice, 4 category, 5 announcement, 15 forum. */
  type: number;
  name: string;
}

export interface SimulatedGuild {
  id: string;
  name: string;
  icon: string | null;
  channels: SimulatedDiscordChannel[];
}

export interface RunningDiscordSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  botToken: string;
}

const clientId = '1100000000000000001';
const clientSecret = 'discord-simulated-secret';
const botToken = 'MTEwMDAw.simulated.bot-token';

const discordError = (status: number, message: string, code: number): SimulatedAnswer =>
  ({ status, body: { message, code } });
const notFound = discordError(404, '404: Not Found', 0);

/** The authority's refusals in Discord's words. */
function discordTokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') return { status: 401, body: { error } };
  if (error === 'invalid_grant' && /authorization code/i.test(description)) {
    return { status: 400, body: { error, error_description: 'Invalid "code" in request.' } };
  }
  return { status: 400, body: { error } };
}

/** Guilds are keyed by the id the authority hands out (`authority.consentingUser`): the server that user picks. */
export async function startDiscordSimulator(
  guilds: Record<string, SimulatedGuild>,
): Promise<RunningDiscordSimulator> {
  const botIn = new Set<string>();
  let exchangesSeen = 0;
  const authority: OAuthAuthority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'basic-or-body',
    requirePkce: false,
    knownScopes: ['bot', 'identify', 'guilds', 'email', 'applications.commands', 'webhook.incoming'],
    accessTokenSeconds: 604_800,
    refreshTokens: 'rotate',
    tokenError: discordTokenError,
    tokenAnswer: (tokens) => {
      const answer = {
        access_token: tokens.accessToken,
        token_type: 'Bearer',
        expires_in: tokens.expiresIn,
        refresh_token: tokens.refreshToken,
        scope: tokens.scope,
      };
      // Only a code exchange installs the bot; a refresh answer names no server.
      const exchange = authority.grants.authorization_code !== exchangesSeen;
      exchangesSeen = authority.grants.authorization_code;
      const guild = guilds[authority.userOf(tokens.accessToken) ?? ''];
      if (!exchange || guild === undefined || !tokens.scope.split(' ').includes('bot')) return answer;
      botIn.add(guild.id);
      const installed = { id: guild.id, name: guild.name, icon: guild.icon, features: [] };
      return { ...answer, guild: { ...installed, owner_id: '80351110224678912' } };
    },
  });

  const server = await startSimulatorServer((request) => {
    if (request.path === '/oauth2/authorize' && request.method === 'GET') return authority.authorize(request);
    if (request.path === '/api/oauth2/token') return authority.token(request);
    const listing = /^\/api\/v10\/guilds\/([^/]+)\/channels$/.exec(request.path);
    if (listing?.[1] === undefined || request.method !== 'GET') return notFound;
    if (request.headers.authorization !== `Bot ${botToken}`) return discordError(401, '401: Unauthorized', 0);
    const guild = Object.values(guilds).find((candidate) => candidate.id === listing[1]);
    if (guild === undefined) return discordError(404, 'Unknown Guild', 10_004);
    if (!botIn.has(guild.id)) return discordError(403, 'Missing Access', 50_001);
    const channels = guild.channels.map((channel, position) => ({
      id: channel.id, type: channel.type, name: channel.name, guild_id: guild.id, position, parent_id: null,
    }));
    return { status: 200, body: channels };
  }, notFound);
  return { ...server, authority, clientId, clientSecret, botToken };
}
