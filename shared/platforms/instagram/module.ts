import { createInstagramAdapter } from './adapter.ts';
import type { PlatformModule } from '../kit/platform-module.ts';
import { instagramRemoval } from '../meta/instagram-removal.ts';
import { instagramConnect } from './connect.ts';
import { instagram } from './definition.ts';

/** Instagram through Facebook Login: Facebook's dialog and token endpoint, the Graph API on graph.facebook.com. */
export const instagramModule: PlatformModule = {
  definition: instagram,
  urls: {
    apiUrl: 'https://graph.facebook.com',
    authUrl: 'https://www.facebook.com',
    tokenUrl: 'https://graph.facebook.com',
  },
  connect: instagramConnect,
  createAdapter: (options, app) => createInstagramAdapter(options, app),
  removal: instagramRemoval,
};
