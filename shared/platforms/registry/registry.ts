import { bluesky } from './bluesky.ts';
import { devto } from './devto.ts';
import { discord } from './discord.ts';
import { dribbble } from './dribbble.ts';
import { facebook } from './facebook.ts';
import { gmb } from './gmb.ts';
import { hashnode } from './hashnode.ts';
import { instagram } from './instagram.ts';
import { instagramStandalone } from './instagram-standalone.ts';
import { lemmy } from './lemmy.ts';
import { linkedin } from './linkedin.ts';
import { linkedinPage } from './linkedin-page.ts';
import { listmonk } from './listmonk.ts';
import { mastodon } from './mastodon.ts';
import { medium } from './medium.ts';
import { nostr } from './nostr.ts';
import { pinterest } from './pinterest.ts';
import { reddit } from './reddit.ts';
import { slack } from './slack.ts';
import { telegram } from './telegram.ts';
import { threads } from './threads.ts';
import { tiktok } from './tiktok.ts';
import { vk } from './vk.ts';
import { warpcast } from './warpcast.ts';
import { wordpress } from './wordpress.ts';
import { x } from './x.ts';
import { youtube } from './youtube.ts';
import type { PlatformDefinition } from './platform.ts';

/** The 27 platforms of the contract, in its order: social, video, community, design, blogging, business. */
const definitions: readonly PlatformDefinition[] = [
  x, linkedin, linkedinPage, facebook, instagram, instagramStandalone, threads, bluesky, mastodon, warpcast, nostr, vk,
  youtube, tiktok,
  reddit, lemmy, discord, slack, telegram,
  pinterest, dribbble,
  medium, devto, hashnode, wordpress,
  gmb, listmonk,
];

const byIdentifier = new Map(definitions.map((definition) => [definition.identifier, definition]));

export function findPlatform(identifier: string): PlatformDefinition | undefined {
  return byIdentifier.get(identifier);
}

export function allPlatforms(): readonly PlatformDefinition[] {
  return definitions;
}
