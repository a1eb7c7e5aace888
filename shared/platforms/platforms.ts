import { blueskyModule } from './bluesky/module.ts';
import { checkedAdapters } from './check-platform-modules.ts';
import { devtoModule } from './devto/module.ts';
import { discordModule } from './discord/module.ts';
import { dribbbleModule } from './dribbble/module.ts';
import { facebookModule } from './facebook/module.ts';
import { gmbModule } from './gmb/module.ts';
import { hashnodeModule } from './hashnode/module.ts';
import { instagramModule } from './instagram/module.ts';
import { instagramStandaloneModule } from './instagram-standalone/module.ts';
import type { AdapterOptions, PlatformAdapter } from './kit/platform-adapter.ts';
import type { PlatformApp } from './kit/platform-connect.ts';
import type { PlatformDefinition } from './kit/platform-definition.ts';
import type { PlatformModule } from './kit/platform-module.ts';
import { lemmyModule } from './lemmy/module.ts';
import { linkedinModule } from './linkedin/module.ts';
import { linkedinPageModule } from './linkedin-page/module.ts';
import { listmonkModule } from './listmonk/module.ts';
import { mastodonModule } from './mastodon/module.ts';
import { mediumModule } from './medium/module.ts';
import { nostrModule } from './nostr/module.ts';
import { pinterestModule } from './pinterest/module.ts';
import { redditModule } from './reddit/module.ts';
import { slackModule } from './slack/module.ts';
import { telegramModule } from './telegram/module.ts';
import { threadsModule } from './threads/module.ts';
import { tiktokModule } from './tiktok/module.ts';
import { vkModule } from './vk/module.ts';
import { warpcastModule } from './warpcast/module.ts';
import { wordpressModule } from './wordpress/module.ts';
import { xModule } from './x/module.ts';
import { youtubeModule } from './youtube/module.ts';

/**
 * The one list of platforms: the 27 of the contract, in its order (social, video, community,
 * design, blogging, business). Everything else about platforms is derived from it.
 */
const modules: readonly PlatformModule[] = [
  xModule, linkedinModule, linkedinPageModule, facebookModule, instagramModule, instagramStandaloneModule,
  threadsModule, blueskyModule, mastodonModule, warpcastModule, nostrModule, vkModule,
  youtubeModule, tiktokModule,
  redditModule, lemmyModule, discordModule, slackModule, telegramModule,
  pinterestModule, dribbbleModule,
  mediumModule, devtoModule, hashnodeModule, wordpressModule,
  gmbModule, listmonkModule,
];

const byIdentifier = new Map(modules.map((module) => [module.definition.identifier, module]));
const definitions = modules.map((module) => module.definition);

export function findPlatform(identifier: string): PlatformDefinition | undefined {
  return byIdentifier.get(identifier)?.definition;
}

/** The platform's name as users know it (the identifier when SPS does not know the platform). */
export function platformDisplayName(identifier: string): string {
  return findPlatform(identifier)?.displayName ?? identifier;
}

export function allPlatforms(): readonly PlatformDefinition[] {
  return definitions;
}

export function findPlatformModule(identifier: string): PlatformModule | undefined {
  return byIdentifier.get(identifier);
}

export function allPlatformModules(): readonly PlatformModule[] {
  return modules;
}

/**
 * Registry identifiers SPS publishes to: every platform it knows, since each module must bring its
 * adapter. A channel whose stored provider is none of them (a platform since removed) gets 501.
 */
export const publishingProviders: ReadonlySet<string> = new Set(modules.map((module) => module.definition.identifier));

export type AdapterSet = ReadonlyMap<string, PlatformAdapter>;

/**
 * Every platform SPS can publish to from a worker, keyed by registry identifier. Throws, naming
 * the platform and the tool, when a platform declares a tool its adapter does not implement.
 */
export function createAdapters(options: AdapterOptions, appOf: (identifier: string) => PlatformApp): AdapterSet {
  return checkedAdapters(modules, options, appOf);
}
