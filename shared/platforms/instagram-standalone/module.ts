import { createInstagramStandaloneAdapter } from './adapter.ts';
import type { PlatformModule } from '../kit/platform-module.ts';
import { instagramRemoval } from '../meta/instagram-removal.ts';
import { instagramStandaloneConnect } from './connect.ts';
import { instagramStandalone } from './definition.ts';

/** Instagram Login spreads over three hosts: consent on www, the code exchange on api, everything else on graph. */
export const instagramStandaloneModule: PlatformModule = {
  definition: instagramStandalone,
  urls: {
    apiUrl: 'https://graph.instagram.com',
    authUrl: 'https://www.instagram.com',
    tokenUrl: 'https://api.instagram.com',
  },
  connect: instagramStandaloneConnect,
  createAdapter: (options, app) => createInstagramStandaloneAdapter(options, app),
  removal: instagramRemoval,
};
