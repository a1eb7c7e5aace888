import type { PlatformModule } from '../kit/platform-module.ts';
import { createXAdapter } from './adapter.ts';
import { xConnect } from './connect.ts';
import { x } from './definition.ts';

export const xModule: PlatformModule = {
  definition: x,
  connect: xConnect,
  urls: { apiUrl: 'https://api.x.com', authUrl: 'https://x.com', tokenUrl: 'https://api.x.com' },
  createAdapter: (options, app) => createXAdapter(options, app),
  // DELETE /2/tweets/:id ("Delete Posts"): the user's own post, for good.
  removal: { supported: true, method: 'delete' },
};
