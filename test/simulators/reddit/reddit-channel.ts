import { connectionPolicyFor } from '../../../shared/net/connection-policy.ts';
import type { ChannelCredentials } from '../../../shared/platforms/kit/platform-adapter.ts';
import type { OAuthConnect, PlatformApp } from '../../../shared/platforms/kit/platform-connect.ts';
import { redditConnect } from '../../../shared/platforms/reddit/connect.ts';
import { authorizeAndConnect } from '../kit/oauth-dance.ts';
import type { RedditSimulator, SimulatedRedditUser } from './reddit-simulator.ts';

/** The account the adapter tests publish as. */
export const ada: SimulatedRedditUser = {
  id: '2x9k1',
  name: 'ada_lovelace',
  icon_img: 'https://styles.redditmedia.com/t5_ada/styles/profileIcon_ada.png?width=256&amp;s=9e1f',
  linkKarma: 1_204,
  commentKarma: 311,
};

/**
 * Subreddits with the rules the tests run into: one that takes anything (with flairs and
 * rules), one that wants flair and takes no text posts, one for text only, a private one.
 */
export function addTestSubreddits(sim: RedditSimulator): void {
  sim.addSubreddit({
    name: 'typescript', title: 'TypeScript', description: 'Typed JavaScript', subscribers: 250_000,
    flairs: [{ id: 'f-help', text: 'Help' }, { id: 'f-show', text: 'Showcase', textEditable: true }],
    rules: [{ name: 'Be civil', description: 'No personal attacks.', kind: 'all' }],
    members: [ada.name],
  });
  sim.addSubreddit({
    name: 'pics', title: 'Pictures', subscribers: 30_000_000, submissionType: 'link', flairRequired: true,
    flairs: [{ id: 'f-oc', text: 'OC', modOnly: false }], members: [ada.name],
  });
  sim.addSubreddit({ name: 'askscience', title: 'Ask Science', submissionType: 'self', members: [ada.name] });
  sim.addSubreddit({ name: 'typescript_jobs', title: 'TypeScript jobs', allowImages: false });
  sim.addSubreddit({ name: 'secret_club', title: 'Secret', type: 'private' });
}

export interface ConnectedChannel {
  app: PlatformApp;
  channel: ChannelCredentials;
}

/** Ada's channel, connected through the room's real OAuth flow against the simulator. */
export async function connectAda(
  sim: RedditSimulator,
  connect: OAuthConnect = redditConnect,
): Promise<ConnectedChannel> {
  const { url } = sim;
  const app: PlatformApp = {
    clientId: sim.clientId, clientSecret: sim.clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null,
  };
  sim.authority.consentingUser = ada.id;
  const context = { app, timeoutMs: 5_000, userHosts: connectionPolicyFor(false) };
  const { tokens } = await authorizeAndConnect(connect, context, 'https://sps.example/channels/callback/reddit');
  return { app, channel: { channelId: 'reddit-channel', accessToken: tokens.accessToken, instanceUrl: null } };
}
