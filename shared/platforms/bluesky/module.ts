import type { PlatformModule } from '../kit/platform-module.ts';
import { createBlueskyAdapter } from './adapter.ts';
import { blueskyConnect } from './connect.ts';
import { bluesky } from './definition.ts';

export const blueskyModule: PlatformModule = {
  definition: bluesky,
  urls: { apiUrl: 'https://bsky.social' },
  connect: blueskyConnect,
  createAdapter: createBlueskyAdapter,
  // com.atproto.repo.deleteRecord: the post's record leaves the account's repository; replies stay.
  removal: { supported: true, method: 'delete' },
};
