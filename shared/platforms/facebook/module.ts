import type { PlatformModule } from '../kit/platform-module.ts';
import { createFacebookAdapter } from './adapter.ts';
import { facebookConnect } from './connect.ts';
import { facebook } from './definition.ts';

export const facebookModule: PlatformModule = {
  definition: facebook,
  urls: {
    apiUrl: 'https://graph.facebook.com',
    authUrl: 'https://www.facebook.com',
    tokenUrl: 'https://graph.facebook.com',
  },
  connect: facebookConnect,
  createAdapter: createFacebookAdapter,
  // PagePost, AdVideo and comments: DELETE /{id} (codegen specs' `#delete`), with the
  // pages_manage_posts and pages_manage_engagement the connect flow asks for.
  removal: { supported: true, method: 'delete', note: 'a video goes with the post that shows it' },
};
