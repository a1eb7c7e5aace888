import { OAuthAuthority } from '../kit/oauth-authority.ts';
import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { requestTooLarge } from './discord-attachments.ts';
import { DiscordGuildReads } from './discord-guild-reads.ts';
import { DiscordMessages } from './discord-messages.ts';
import { discordOperations } from './discord-operations.ts';
import { DiscordTraffic, routeOf } from './discord-rate-limits.ts';
import { DiscordThreads } from './discord-threads.ts';
import { discordError, DiscordWorld, type DiscordPermission, type SimulatedGuild } from './discord-world.ts';

export type { SimulatedDiscordChannel, SimulatedGuild } from './discord-world.ts';

/**
 * A local stand-in for Discord's bot install and the bot API SPS connects and publishes with:
 * - discord.com `GET /oauth2/authorize` (space-separated scopes, no PKCE);
 * - `POST /api/oauth2/token` with the client's id and secret as Basic or in the form; user
 *   tokens last a week and their refresh tokens rotate; the answer to a code exchange whose
 *   authorization held the `bot` scope carries the `guild` the bot was added to, which from
 *   then on counts the bot as a member; refusals are `{error[, error_description]}`;
 * - under `/api/v10`, with `Authorization: Bot <token>` (401 `{message: "401: Unauthorized",
 *   code: 0}` for another token, 403 `Missing Access` (50001) where the bot is not a member or
 *   cannot see the channel, 403 `Missing Permissions` (50013), 404 `Unknown Channel` (10003),
 *   `Unknown Guild` (10004)): messages (discord-messages.ts), files (discord-attachments.ts),
 *   threads and forum posts (discord-threads.ts), server reads (discord-guild-reads.ts), every
 *   route behind its rate-limit bucket, with faults a test arranges (discord-rate-limits.ts).
 *   A whole request over 25 MiB is refused with 413 (40005).
 * Requests and answers are held to Discord's description (operations.json, discord-operations.ts); a
 * request it does not allow is refused 400 Invalid Form Body (50035).
 * Facts: /work/shared/platforms/open-and-community.md section 8.
 */
export interface RunningDiscordSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  botToken: string;
  /** Guilds, channels, threads and messages as Discord holds them now. */
  world: DiscordWorld;
  messages: DiscordMessages;
  threads: DiscordThreads;
  /** Rate-limit buckets, and the faults a test arranges for a route's next requests. */
  traffic: DiscordTraffic;
  /** Adds the bot to a server without the install flow (adapter tests). */
  installBot(guildId: string): void;
  /** Takes permissions from the bot in one channel (and its threads). */
  deny(channelId: string, ...permissions: DiscordPermission[]): void;
  /** The operator resets the bot's token in the developer portal: the old one gets 401 from then on. */
  resetBotToken(): void;
  /** Members react to a message. */
  react(messageId: string, emoji: string, count: number): void;
  /** Requests received for one route (`POST /channels/:id/messages`), refused ones too. */
  requestsTo(route: string): SimulatedRequest[];
}

const clientId = '1100000000000000001';
const clientSecret = 'discord-simulated-secret';
const botToken = 'MTEwMDAw.simulated.bot-token';
const apiPrefix = '/api/v10';

const notFound = discordError(404, '404: Not Found', 0);

/** The authority's refusals in Discord's words. */
function discordTokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') return { status: 401, body: { error } };
  if (error === 'invalid_grant' && /authorization code/i.test(description)) {
    return { status: 400, body: { error, error_description: 'Invalid "code" in request.' } };
  }
  return { status: 400, body: { error } };
}

type Route = (request: SimulatedRequest, ids: string[]) => SimulatedAnswer;

/** Guilds are keyed by the id the authority hands out (`authority.consentingUser`): the server that user picks. */
export async function startDiscordSimulator(
  guilds: Record<string, SimulatedGuild>,
): Promise<RunningDiscordSimulator> {
  const world = new DiscordWorld(Object.values(guilds), botToken);
  const messages = new DiscordMessages(world);
  const threads = new DiscordThreads(world, messages);
  const reads = new DiscordGuildReads(world);
  const traffic = new DiscordTraffic();
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
      world.botIn.add(guild.id);
      return { ...answer, guild: world.guildJson(guild) };
    },
  });

  /** Routes under /api/v10, by `routeOf` name; `ids` are the path's snowflakes in order. */
  const routes: Record<string, Route> = {
    'GET /users/@me': (request) => reads.me(request),
    'GET /guilds/:id': (request, [guild = '']) => reads.guild(request, guild),
    'GET /guilds/:id/channels': (request, [guild = '']) => reads.channels(request, guild),
    'GET /guilds/:id/roles': (request, [guild = '']) => reads.roles(request, guild),
    'GET /guilds/:id/members/search': (request, [guild = '']) => reads.searchMembers(request, guild),
    'GET /guilds/:id/threads/active': (request, [guild = '']) => threads.active(request, guild),
    'GET /channels/:id': (request, [channel = '']) => reads.channel(request, channel),
    'GET /channels/:id/messages': (request, [channel = '']) => messages.list(request, channel),
    'GET /channels/:id/messages/:id': (request, [channel = '', message = '']) =>
      messages.one(request, channel, message),
    'POST /channels/:id/messages': (request, [channel = '']) => messages.create(request, channel),
    'DELETE /channels/:id/messages/:id': (request, [channel = '', message = '']) =>
      messages.remove(request, channel, message),
    'DELETE /channels/:id': (request, [channel = '']) => messages.removeThread(request, channel),
    'POST /channels/:id/messages/:id/threads': (request, [channel = '', message = '']) =>
      threads.fromMessage(request, channel, message),
    'POST /channels/:id/threads': (request, [channel = '']) => threads.forumPost(request, channel),
  };

  const server = await startSimulatorServer(async (request) => {
    if (request.path === '/oauth2/authorize' && request.method === 'GET') return authority.authorize(request);
    if (request.path === '/api/oauth2/token') return authority.token(request);
    if (!request.path.startsWith(`${apiPrefix}/`)) return notFound;
    const path = request.path.slice(apiPrefix.length);
    const route = routeOf(request.method, path);
    const handle = routes[route];
    if (handle === undefined) return notFound;
    const ids = [...path.matchAll(/\/(\d{5,})(?=\/|$)/g)].map((match) => match[1] ?? '');
    return traffic.run(route, ids[0] ?? '', () => handle(request, ids));
  }, notFound, { maxBodyBytes: 25 * 1024 * 1024, tooLarge: requestTooLarge, operations: discordOperations() });

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    botToken,
    world,
    messages,
    threads,
    traffic,
    installBot: (guildId) => { world.botIn.add(guildId); },
    resetBotToken: () => { world.botToken = `${botToken}.reset-${world.nextId()}`; },
    deny: (channelId, ...permissions) => {
      const channel = world.channels.get(channelId);
      if (channel === undefined) throw new Error(`no channel ${channelId}`);
      channel.denied = [...(channel.denied ?? []), ...permissions];
    },
    react: (messageId, emoji, count) => {
      const message = world.messages.find((candidate) => candidate.id === messageId);
      if (message === undefined) throw new Error(`no message ${messageId}`);
      message.reactions.push({ emoji, count });
    },
    requestsTo: (route) => server.received.filter((request) => request.path.startsWith(apiPrefix)
      && routeOf(request.method, request.path.slice(apiPrefix.length)) === route),
  };
}
