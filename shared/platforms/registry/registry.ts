import { mastodon } from './mastodon.ts';
import type { PlatformDefinition } from './platform.ts';

const definitions: readonly PlatformDefinition[] = [mastodon];

const byIdentifier = new Map(definitions.map((definition) => [definition.identifier, definition]));

export function findPlatform(identifier: string): PlatformDefinition | undefined {
  return byIdentifier.get(identifier);
}

export function allPlatforms(): readonly PlatformDefinition[] {
  return definitions;
}
