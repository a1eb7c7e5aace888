import type { PlatformDefinition } from './platform.ts';

export const mastodon: PlatformDefinition = {
  identifier: 'mastodon',
  displayName: 'Mastodon',
  group: 'social',
  // Mastodon's default `max_characters`; instances may allow more.
  textLimit: 500,
  replies: 'thread',
};
