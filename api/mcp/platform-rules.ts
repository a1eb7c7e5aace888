import { channelSettingsView } from '../../shared/domain/channels/channel-settings.ts';
import { allowedMimeTypes } from '../../shared/media/media-types.ts';
import type { PlatformDefinition } from '../../shared/platforms/kit/platform-definition.ts';
import { allPlatforms, findPlatform } from '../../shared/platforms/platforms.ts';

/** Every platform's rules at once; `sps://platforms/<identifier>` is one platform's. */
export const platformsResourceUri = 'sps://platforms';

/**
 * What an agent needs to plan a post before making it, straight from the platform definitions
 * that validate posts: the text limit and how it is counted, what parts after the first become,
 * the media rules, the post settings (JSON Schema), the platform's helper tools and whether a post
 * deleted with onPlatform leaves the platform too.
 */
function platformRules(platform: PlatformDefinition) {
  const view = channelSettingsView(platform);
  return {
    identifier: platform.identifier,
    displayName: platform.displayName,
    group: platform.group,
    textLimit: platform.textLimit,
    textCounting: platform.textCounting,
    replies: platform.replies,
    mediaRules: platform.mediaRules,
    rules: platform.rules,
    settings: view.settings,
    tools: view.tools,
    removal: view.removal,
  };
}

export interface PlatformResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: 'application/json';
}

/** The resources a server lists: all platforms, then one per platform. */
export function platformResources(): PlatformResource[] {
  return [
    {
      uri: platformsResourceUri, name: 'platforms', title: 'Rules of every platform', mimeType: 'application/json',
      description: 'Text limits, media rules, post settings (JSON Schema) and tools of every platform SPS '
        + 'publishes to, and the media types uploads accept.',
    },
    ...allPlatforms().map((platform) => ({
      uri: `${platformsResourceUri}/${platform.identifier}`, name: `platform-${platform.identifier}`,
      title: `${platform.displayName} rules`, mimeType: 'application/json' as const,
      description: `Text limit, media rules, post settings and tools of ${platform.displayName}.`,
    })),
  ];
}

/** The JSON text of a platform resource; null for a URI that names none. */
export function readPlatformResource(uri: string): string | null {
  if (uri === platformsResourceUri) {
    return JSON.stringify({ mediaTypes: allowedMimeTypes, platforms: allPlatforms().map(platformRules) });
  }
  const prefix = `${platformsResourceUri}/`;
  if (!uri.startsWith(prefix)) return null;
  const platform = findPlatform(uri.slice(prefix.length));
  return platform === undefined ? null : JSON.stringify(platformRules(platform));
}
