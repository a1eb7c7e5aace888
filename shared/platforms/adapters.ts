import { createMastodonAdapter } from './mastodon/mastodon-adapter.ts';
import type { AdapterOptions, PlatformAdapter } from './kit/platform-adapter.ts';

export type AdapterSet = ReadonlyMap<string, PlatformAdapter>;

/** Registry identifiers that have an adapter; the api answers 501 for platform calls to the others. */
export const providersWithAdapters: ReadonlySet<string> = new Set(['mastodon']);

/** Every platform SPS can publish to from a worker, keyed by registry identifier. */
export function createAdapters(options: AdapterOptions): AdapterSet {
  const adapters = [createMastodonAdapter(options)];
  return new Map(adapters.map((adapter) => [adapter.provider, adapter]));
}
