import { createLinkedinAdapter } from './adapter.ts';
import type { PlatformModule } from '../kit/platform-module.ts';
import { removalNotBuilt } from '../kit/platform-removal.ts';
import { linkedinConnect } from './connect.ts';
import { linkedin } from './definition.ts';

export const linkedinModule: PlatformModule = {
  definition: linkedin,
  createAdapter: createLinkedinAdapter,
  connect: linkedinConnect,
  urls: {
    apiUrl: 'https://api.linkedin.com',
    authUrl: 'https://www.linkedin.com',
    tokenUrl: 'https://www.linkedin.com',
  },
  // LinkedIn's Posts API deletes a post; not built: the DELETE is in none of the descriptions or notes
  // SPS's simulators are held to (oauth-majors.md 2 records create and read only).
  removal: removalNotBuilt('DELETE /rest/posts/{urn}, with the w_member_social scope channels grant'),
};
