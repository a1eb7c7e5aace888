import type { PlatformModule } from '../kit/platform-module.ts';
import { createYoutubeAdapter } from './adapter.ts';
import { youtubeConnect } from './connect.ts';
import { youtube } from './definition.ts';
import { googleUrls } from '../google/google-oauth.ts';

export const youtubeModule: PlatformModule = {
  definition: youtube,
  urls: { apiUrl: 'https://www.googleapis.com', ...googleUrls },
  connect: youtubeConnect,
  createAdapter: (options, app) => createYoutubeAdapter(options, app),
  // videos.delete (discovery: youtube, youtube.force-ssl or youtubepartner; connect asks for force-ssl).
  removal: { supported: true, method: 'delete' },
};
