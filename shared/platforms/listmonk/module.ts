import type { PlatformModule } from '../kit/platform-module.ts';
import { createListmonkAdapter } from './adapter.ts';
import { listmonkConnect } from './connect.ts';
import { listmonk } from './definition.ts';

export const listmonkModule: PlatformModule = {
  definition: listmonk,
  connect: listmonkConnect,
  createAdapter: createListmonkAdapter,
  removal: {
    supported: false, why: 'cannot',
    reason: 'a campaign\'s emails cannot be recalled once listmonk sent them; deleting the campaign '
      + '(DELETE /api/campaigns/:id) would only drop its record and archive page, so SPS leaves it',
  },
};
