import type { PlatformModule } from '../kit/platform-module.ts';
import { createPinterestAdapter } from './adapter.ts';
import { pinterestConnect } from './connect.ts';
import { pinterest } from './definition.ts';

export const pinterestModule: PlatformModule = {
  definition: pinterest,
  connect: pinterestConnect,
  urls: {
    apiUrl: 'https://api.pinterest.com',
    authUrl: 'https://www.pinterest.com',
    tokenUrl: 'https://api.pinterest.com',
  },
  createAdapter: (options, app) => createPinterestAdapter(options, app),
  // DELETE /v5/pins/:pin_id: the pin, for good.
  removal: { supported: true, method: 'delete' },
};
