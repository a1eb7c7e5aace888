import { z } from 'zod';
import { readStandardTokens } from '../kit/oauth2.ts';
import type { ConnectContext, OAuthConnect, UserTokens } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { encodeDiscordCredential } from './credential.ts';
import { discordUserAgent } from './discord-api.ts';
import { classifyDiscordRefusal, discordErrorMessage, discordRetryAfterMs } from './discord-errors.ts';

const provider = 'discord';

/**
 * What publishing needs of the bot: VIEW_CHANNEL (1 << 10), SEND_MESSAGES (11), ATTACH_FILES (15),
 * READ_MESSAGE_HISTORY (16: a retry looks for a message whose answer was lost), CREATE_PUBLIC_THREADS
 * (35) and SEND_MESSAGES_IN_THREADS (38) for the parts after the first.
 */
const botPermissions = String([10n, 11n, 15n, 16n, 35n, 38n].reduce((bits, bit) => bits | (1n << bit), 0n));

/** Text and announcement channels take messages; voice, category and forum channels do not. */
const postableTypes = new Set([0, 5]);

const guild = z.object({ id: z.string().min(1), name: z.string(), icon: z.string().nullable().optional() });

/** The token answer of a bot install names the server the user added the bot to. */
interface InstalledTokens extends UserTokens {
  guild: z.infer<typeof guild> | null;
}

const installAnswer = z.object({ guild: guild.optional() });

function readDiscordTokens(body: unknown, now: Date): InstalledTokens | null {
  const tokens = readStandardTokens(body, now);
  if (tokens === null) return null;
  const installed = installAnswer.safeParse(body);
  return { ...tokens, guild: installed.success ? installed.data.guild ?? null : null };
}

/** The server the bot was added to, as readDiscordTokens left it beside the tokens. */
const installedGuild = z.object({ guild });

const channelList = z.array(z.object({ id: z.string().min(1), type: z.number().int(), name: z.string().optional() }));

async function guildChannels(guildId: string, botToken: string, context: ConnectContext) {
  const body = await platformRequest({
    provider,
    serverName: 'Discord',
    method: 'GET',
    url: `${context.app.apiUrl}/v10/guilds/${encodeURIComponent(guildId)}/channels`,
    headers: { Authorization: `Bot ${botToken}`, 'User-Agent': discordUserAgent },
    timeoutMs: context.timeoutMs,
    errorMessage: discordErrorMessage,
    classify: classifyDiscordRefusal,
    retryAfterMs: discordRetryAfterMs,
  });
  const parsed = channelList.safeParse(body);
  if (!parsed.success) {
    throw unreadableAnswer(provider, 'Discord answered with a channel list', { cause: parsed.error });
  }
  return parsed.data.filter((channel) => postableTypes.has(channel.type));
}

/**
 * Discord connects by adding the operator's bot to a server the user manages (the `bot` scope
 * in the authorization-code flow); the bot then posts. Listing the server's channels takes the
 * bot's own token (DISCORD_BOT_TOKEN).
 */
export const discordConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => ({
    platform: provider,
    authorizeUrl: `${app.authUrl}/oauth2/authorize`,
    tokenUrl: `${app.tokenUrl}/oauth2/token`,
    scopes: ['bot', 'identify', 'guilds'],
    pkce: false,
    clientAuthentication: 'basic',
    // integration_type 0: installed to a server, not to the user's account.
    authorizeParameters: { permissions: botPermissions, integration_type: '0' },
    readTokens: readDiscordTokens,
    // The user's tokens last a week and renew with the refresh grant (the bot's token does not expire).
    refreshable: true,
  }),

  async accounts(tokens, context) {
    const installed = installedGuild.safeParse(tokens);
    if (!installed.success) {
      const message = 'Discord did not say which server the bot was added to: add it to a server and try again';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const server = installed.data.guild;
    const token = context.app.botToken;
    if (token === null) {
      const message = 'the bot token is not configured on this SPS installation (DISCORD_BOT_TOKEN)';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const channels = await guildChannels(server.id, token, context);
    const icon = server.icon ?? null;
    return {
      pick: true,
      accounts: channels.map((channel) => ({
        accountId: channel.id,
        name: `#${channel.name ?? channel.id}`,
        username: server.name,
        picture: icon === null ? null : `https://cdn.discordapp.com/icons/${server.id}/${icon}.png`,
        instanceUrl: null,
        accessToken: encodeDiscordCredential({ guildId: server.id, channelId: channel.id }),
        // The bot posts: the user's own tokens are not needed once the server is chosen.
        refreshToken: null,
        expiresAt: null,
      })),
    };
  },
};
