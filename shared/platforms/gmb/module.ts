import type { PlatformModule } from '../kit/platform-module.ts';
import { googleUrls } from '../google/google-oauth.ts';
import { createGmbAdapter } from './adapter.ts';
import { gmbConnect } from './connect.ts';
import { gmb } from './definition.ts';
import { gmbApiUrl } from './gmb-api.ts';

export const gmbModule: PlatformModule = {
  definition: gmb,
  urls: { apiUrl: gmbApiUrl, ...googleUrls },
  connect: gmbConnect,
  createAdapter: (options, app) => createGmbAdapter(options, app),
  // v4 accounts.locations.localPosts.delete, with the business.manage scope channels grant.
  removal: { supported: true, method: 'delete' },
};
