import { createInstagramAdapter } from './adapter.ts';
import type { PlatformModule } from '../kit/platform-module.ts';
import { removalNotBuilt } from '../kit/platform-removal.ts';
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
  // IGMedia has `#delete` in Meta's codegen specs, which name no permission; oauth-majors.md 4 says
  // nothing of deleting. Building it waits for the permission (and whether organic posts qualify).
  removal: removalNotBuilt('DELETE /{ig-media-id}, as Meta\'s Graph API specs list it, with no permission documented'),
};
