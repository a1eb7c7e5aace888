import { createMastodonAdapter } from './mastodon/mastodon-adapter.ts';
import type { AdapterOptions, PlatformAdapter } from './platform-adapter.ts';

export type AdapterSet = ReadonlyMap<string, PlatformAdapter>;

/** Every platform SPS can publish to from a worker, keyed by registry identifier. */
export function createAdapters(options: AdapterOptions): AdapterSet {
  const adapters = [createMastodonAdapter(options)];
  return new Map(adapters.map((adapter) => [adapter.provider, adapter]));
}
