import { connectionPolicyFor } from '../../../shared/net/connection-policy.ts';
import type { ChannelCredentials } from '../../../shared/platforms/kit/platform-adapter.ts';
import type { ConnectContext } from '../../../shared/platforms/kit/platform-connect.ts';
import { tiktokConnect } from '../../../shared/platforms/tiktok/connect.ts';
import { authorizeAndConnect } from '../kit/oauth-dance.ts';
import { startTikTokSimulator, type RunningTikTokSimulator, type SimulatedTikTokUser } from './tiktok-simulator.ts';

/**
 * Creators the TikTok adapter tests post as, each connected through TikTok's real consent flow
 * (the room's connect step against the simulator), as the dashboard connects them.
 */
const profile = (key: string, username: string): Omit<SimulatedTikTokUser, 'creator' | 'declinedScopes'> => ({
  openId: `-000${key}`,
  unionId: `union-${key}`,
  displayName: `${username} on TikTok`,
  username,
  avatarUrl: `https://p16-sign.tiktokcdn.com/${username}.jpeg`,
});

export const tiktokCreators: Record<string, SimulatedTikTokUser> = {
  /** Every privacy level, nothing turned off. */
  ada: profile('ada', 'ada.films'),
  /** A private account: friends and herself only; comments, Duet and Stitch off; 30-second videos. */
  bea: {
    ...profile('bea', 'bea.quiet'),
    creator: {
      privacyLevelOptions: ['MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
      commentDisabled: true,
      duetDisabled: true,
      stitchDisabled: true,
      maxVideoPostDurationSec: 30,
    },
  },
  /** Unticked the analytics permissions on the consent page. */
  cal: { ...profile('cal', 'cal.posts'), declinedScopes: ['user.info.stats', 'video.list'] },
};

export async function startTikTokWithCreators(): Promise<RunningTikTokSimulator> {
  return startTikTokSimulator(tiktokCreators);
}

export function tiktokConnectContext(sim: RunningTikTokSimulator): ConnectContext {
  const { clientId, clientSecret, url } = sim;
  const app = { clientId, clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null };
  return { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
}

/** A fresh token of `user` (so per-token rate limits start afresh), as channel credentials. */
export async function connectedChannel(sim: RunningTikTokSimulator, user: string): Promise<ChannelCredentials> {
  sim.authority.consentingUser = user;
  const { tokens } = await authorizeAndConnect(tiktokConnect, tiktokConnectContext(sim));
  return { channelId: `channel-${user}`, accessToken: tokens.accessToken, instanceUrl: null };
}
