import type { PlatformModule } from '../kit/platform-module.ts';
import { createTikTokAdapter } from './adapter.ts';
import { tiktokConnect } from './connect.ts';
import { tiktok } from './definition.ts';

export const tiktokModule: PlatformModule = {
  definition: tiktok,
  urls: {
    apiUrl: 'https://open.tiktokapis.com',
    authUrl: 'https://www.tiktok.com',
    tokenUrl: 'https://open.tiktokapis.com',
  },
  connect: tiktokConnect,
  createAdapter: (options, app) => createTikTokAdapter(options, app),
  removal: {
    supported: false, why: 'cannot',
    reason: 'TikTok\'s Content Posting API publishes videos and photos but has no call to delete one: '
      + 'the account deletes it in the TikTok app',
  },
};
