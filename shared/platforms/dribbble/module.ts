import type { PlatformModule } from '../kit/platform-module.ts';
import { createDribbbleAdapter } from './adapter.ts';
import { dribbbleConnect } from './connect.ts';
import { dribbble } from './definition.ts';

export const dribbbleModule: PlatformModule = {
  definition: dribbble,
  connect: dribbbleConnect,
  urls: { apiUrl: 'https://api.dribbble.com', authUrl: 'https://dribbble.com', tokenUrl: 'https://dribbble.com' },
  createAdapter: createDribbbleAdapter,
  // DELETE /v2/shots/:id: the player's shot, for good.
  removal: { supported: true, method: 'delete' },
};
