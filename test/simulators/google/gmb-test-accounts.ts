import { solidPng } from '../../support/sample-media.ts';
import { connectionPolicyFor } from '../../../shared/net/connection-policy.ts';
import { gmbConnect } from '../../../shared/platforms/gmb/connect.ts';
import type { ChannelCredentials } from '../../../shared/platforms/kit/platform-adapter.ts';
import type { ConnectContext } from '../../../shared/platforms/kit/platform-connect.ts';
import { authorizeAndConnect } from '../kit/oauth-dance.ts';
import { startGmbSimulator, type GmbSimulator } from './gmb-simulator.ts';
import type { SimulatedGoogleUser } from './google-simulator.ts';

/**
 * The Google users adapter tests of Google Business Profile connect: `owner` manages two
 * locations of one account and one of another; `nobody` manages none of them.
 */
export function businessUsers(): Record<string, SimulatedGoogleUser> {
  return {
    owner: {
      channels: [],
      businessAccounts: [
        {
          name: 'accounts/100', accountName: 'Ada',
          locations: [{ name: 'locations/a1', title: 'Ada Bakery' }, { name: 'locations/a2', title: 'Ada Cafe' }],
        },
        { name: 'accounts/200', accountName: 'Bea group', locations: [{ name: 'locations/b1', title: 'Bea Books' }] },
      ],
    },
    nobody: { channels: [], businessAccounts: [] },
  };
}

export function startGmbWithOwners(): Promise<GmbSimulator> {
  return startGmbSimulator(businessUsers());
}

export function gmbContext(sim: GmbSimulator): ConnectContext {
  const { clientId, clientSecret, url } = sim;
  const app = { clientId, clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null };
  return { app, timeoutMs: 5_000, userHosts: connectionPolicyFor(false) };
}

/** The channel a user gets by connecting through Google's consent and picking `location`. */
export async function connectedLocation(
  sim: GmbSimulator,
  location: string,
  user = 'owner',
): Promise<ChannelCredentials & { refreshToken: string }> {
  sim.authority.consentingUser = user;
  const { authorized } = await authorizeAndConnect(gmbConnect, gmbContext(sim));
  const picked = authorized.accounts.find((account) => account.accountId === location);
  if (picked === undefined) throw new Error(`${user} was not offered ${location}`);
  return {
    channelId: `c-${location}`, accessToken: picked.accessToken, instanceUrl: null,
    refreshToken: picked.refreshToken ?? '',
  };
}

/** A PNG Google takes: 300x300, padded past its end to 12 KB (over Google's 10 KB minimum). */
export function businessPhoto(side = 300, bytes = 12_000): Buffer {
  const png = solidPng(side, [200, 120, 40]);
  return Buffer.concat([png, Buffer.alloc(Math.max(0, bytes - png.length))]);
}
