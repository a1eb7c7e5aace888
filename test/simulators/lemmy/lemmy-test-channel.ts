import { Readable } from 'node:stream';
import { connectionPolicyFor } from '../../../shared/net/connection-policy.ts';
import type { ChannelCredentials, PublishMedia } from '../../../shared/platforms/kit/platform-adapter.ts';
import { lemmyConnect } from '../../../shared/platforms/lemmy/connect.ts';
import { testConnectContext } from '../kit/connect-context.ts';
import type { LemmySimulator } from './lemmy-simulator.ts';

/** Alice, who posts in the tests, and the communities of the simulated instance. */
export const alice = {
  id: 7, name: 'alice', email: 'alice@example.org', password: 'correct horse', displayName: 'Alice A.',
};
export const communities = {
  technology: 12,
  announcements: 13,
  banned: 14,
  english: 15,
  remote: 16,
} as const;
/** Lemmy's language id for English on a default instance. */
export const english = 37;

/** Alice and the communities the adapter tests post to; generous limits unless a test sets its own. */
export function seedInstance(simulator: LemmySimulator): void {
  simulator.addUser(alice);
  simulator.addUser({ id: 8, name: 'bob', email: 'bob@example.org', password: 'hunter22' });
  simulator.addCommunity({
    id: communities.technology, name: 'technology', title: 'Technology', subscribers: [7, 8],
  });
  simulator.addCommunity({
    id: communities.announcements, name: 'announcements', title: 'Announcements',
    postingRestrictedToMods: true, moderators: [8], subscribers: [7],
  });
  simulator.addCommunity({ id: communities.banned, name: 'gardening', title: 'Gardening', banned: [7] });
  simulator.addCommunity({
    id: communities.english, name: 'english_only', title: 'English only', languages: [english],
  });
  simulator.addCommunity({
    id: communities.remote, name: 'rust', title: 'Rust', remoteHost: 'programming.dev', known: false,
  });
  for (const bucket of ['post', 'comment', 'image', 'search'] as const) {
    simulator.rateLimits.set(bucket, { count: 1000, perSecond: 60 });
  }
}

/** Signs Alice in through the room's connect step, as the dashboard does, and answers her channel. */
export async function aliceChannel(simulator: LemmySimulator): Promise<ChannelCredentials> {
  const context = testConnectContext({ userHosts: connectionPolicyFor(true), timeoutMs: 5_000 });
  const values = { instanceUrl: simulator.url, username: alice.name, password: alice.password };
  const account = await lemmyConnect.verify(values, context);
  return { channelId: 'lemmy-channel', accessToken: account.accessToken, instanceUrl: account.instanceUrl };
}

/** A file the adapter reads as the engine hands it over. */
export function mediaFile(kind: 'image' | 'video', bytes: Buffer, alt: string | null = null): PublishMedia {
  const mimeType = kind === 'image' ? 'image/png' : 'video/mp4';
  const fileName = kind === 'image' ? 'picture.png' : 'clip.mp4';
  return {
    kind, mimeType, size: bytes.length, fileName, alt,
    url: `http://127.0.0.1/uploads/${fileName}`,
    open: () => Promise.resolve(Readable.from([bytes])),
  };
}
