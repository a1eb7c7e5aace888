import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { authorizeAndConnect } from '../kit/oauth-dance.ts';
import { testConnectContext } from '../kit/connect-context.ts';
import type { ChannelCredentials, PublishMedia } from '../../../shared/platforms/kit/platform-adapter.ts';
import type { OAuthConnect } from '../../../shared/platforms/kit/platform-connect.ts';
import type { LinkedinSimulator } from './linkedin-simulator.ts';

/**
 * For adapter tests: a channel's credentials obtained through the room's own connect step against
 * the simulator (the account picked by its id), and files in the shape the publish engine hands
 * adapters.
 */
export async function connectedChannel(
  connect: OAuthConnect,
  sim: LinkedinSimulator,
  accountId?: string,
): Promise<ChannelCredentials> {
  const context = testConnectContext({ apiUrl: sim.url, clientId: sim.clientId, clientSecret: sim.clientSecret });
  const { authorized } = await authorizeAndConnect(connect, context);
  const account = accountId === undefined
    ? authorized.accounts[0]
    : authorized.accounts.find((candidate) => candidate.accountId === accountId);
  if (account === undefined) throw new Error(`the simulator offered no account ${accountId ?? ''}`);
  return { channelId: `channel-${account.accountId}`, accessToken: account.accessToken, instanceUrl: null };
}

export function fileMedia(path: string, mimeType: string, alt: string | null = null): PublishMedia {
  const bytes = readFileSync(path);
  return {
    kind: mimeType.startsWith('video/') ? 'video' : 'image',
    mimeType,
    size: bytes.length,
    fileName: path.slice(path.lastIndexOf('/') + 1),
    alt,
    url: `http://127.0.0.1:9/uploads/${path.slice(path.lastIndexOf('/') + 1)}`,
    open: () => Promise.resolve(Readable.from([bytes])),
  };
}
