import type { PlatformModule } from '../kit/platform-module.ts';
import { createMediumAdapter } from './adapter.ts';
import { mediumConnect } from './connect.ts';
import { medium } from './definition.ts';

export const mediumModule: PlatformModule = {
  definition: medium,
  urls: { apiUrl: 'https://api.medium.com/v1' },
  connect: mediumConnect,
  createAdapter: createMediumAdapter,
  removal: {
    supported: false, why: 'cannot',
    reason: 'Medium\'s API creates posts but has no call to edit, unpublish or delete one: '
      + 'the author deletes it on medium.com',
  },
};
