import { Readable } from 'node:stream';
import { connectionPolicyFor } from '../../../shared/net/connection-policy.ts';
import type { ChannelCredentials, PublishMedia } from '../../../shared/platforms/kit/platform-adapter.ts';
import type { PlatformApp } from '../../../shared/platforms/kit/platform-connect.ts';
import { slackConnect } from '../../../shared/platforms/slack/connect.ts';
import { authorizeAndConnect } from '../kit/oauth-dance.ts';
import { startSlackSimulator, type RunningSlackSimulator } from './slack-simulator.ts';

/** The workspace adapter tests publish to: channels the bot is in or not, private, archived. */
export const acme = {
  teamId: 'T0ACME',
  teamName: 'Acme',
  channels: [
    { id: 'C0GENERAL', name: 'general', isPrivate: false, botIsMember: true, members: 41 },
    { id: 'C0NEWSDESK', name: 'news', isPrivate: false },
    { id: 'G0LAUNCHPAD', name: 'launch', isPrivate: true, botIsMember: true, members: 3 },
    { id: 'G0BOARDROOM', name: 'board', isPrivate: true },
    { id: 'C0ARCHIVED', name: 'old', isPrivate: false, isArchived: true, botIsMember: true },
  ],
};

export interface ConnectedSlack {
  slack: RunningSlackSimulator;
  app: PlatformApp;
  /** The channel as the engine hands it to the adapter: the credential connect stored for #general. */
  channel: ChannelCredentials;
}

/** A simulator, and #general of its workspace connected through the room's real OAuth flow. */
export async function connectedSlack(): Promise<ConnectedSlack> {
  const slack = await startSlackSimulator({ 'user-1': structuredClone(acme) });
  const { clientId, clientSecret, url } = slack;
  const app: PlatformApp = {
    clientId, clientSecret, botToken: null, apiUrl: `${url}/api`, authUrl: url, tokenUrl: `${url}/api`,
  };
  const context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
  const redirectUri = 'https://sps.example/channels/callback/slack';
  const { authorized } = await authorizeAndConnect(slackConnect, context, redirectUri);
  const general = authorized.accounts.find((account) => account.accountId === 'T0ACME/C0GENERAL');
  if (general === undefined) throw new Error('#general was not offered');
  return { slack, app, channel: { channelId: 'channel-1', accessToken: general.accessToken, instanceUrl: null } };
}

/** A file as the engine hands it over, read from memory. */
export function mediaOf(bytes: Buffer, fileName: string, mimeType: string, alt: string | null = null): PublishMedia {
  return {
    kind: mimeType.startsWith('video/') ? 'video' : 'image',
    mimeType,
    size: bytes.length,
    fileName,
    alt,
    url: `http://127.0.0.1/uploads/${fileName}`,
    open: () => Promise.resolve(Readable.from([bytes])),
  };
}
