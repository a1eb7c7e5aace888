import { createLinkedinPageAdapter } from './adapter.ts';
import type { PlatformModule } from '../kit/platform-module.ts';
import { removalNotBuilt } from '../kit/platform-removal.ts';
import { linkedinPageConnect } from './connect.ts';
import { linkedinPage } from './definition.ts';

export const linkedinPageModule: PlatformModule = {
  definition: linkedinPage,
  createAdapter: createLinkedinPageAdapter,
  connect: linkedinPageConnect,
  urls: {
    apiUrl: 'https://api.linkedin.com',
    authUrl: 'https://www.linkedin.com',
    tokenUrl: 'https://www.linkedin.com',
  },
  // As for linkedin: the Posts API's DELETE is not yet in the notes the simulator is held to.
  removal: removalNotBuilt('DELETE /rest/posts/{urn}, with the w_organization_social scope channels grant'),
};
