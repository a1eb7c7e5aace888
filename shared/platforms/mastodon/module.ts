import type { PlatformModule } from '../kit/platform-module.ts';
import { createMastodonAdapter } from './adapter.ts';
import { mastodon } from './definition.ts';

export const mastodonModule: PlatformModule = {
  definition: mastodon,
  createAdapter: createMastodonAdapter,
};
