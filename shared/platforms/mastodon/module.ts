import type { PlatformModule } from '../kit/platform-module.ts';
import { createMastodonAdapter } from './adapter.ts';
import { mastodonConnect } from './connect.ts';
import { mastodon } from './definition.ts';

export const mastodonModule: PlatformModule = {
  definition: mastodon,
  connect: mastodonConnect,
  createAdapter: createMastodonAdapter,
  // docs.joinmastodon.org/methods/statuses/#delete: "Delete one of your own statuses".
  removal: { supported: true, method: 'delete' },
};
