import { createLinkedinAdapter } from './adapter.ts';
import type { PlatformModule } from '../kit/platform-module.ts';
import { linkedinConnect } from './connect.ts';
import { linkedin } from './definition.ts';
import { linkedinRemoval } from '../linkedin-family/linkedin-removal.ts';

export const linkedinModule: PlatformModule = {
  definition: linkedin,
  createAdapter: createLinkedinAdapter,
  connect: linkedinConnect,
  urls: {
    apiUrl: 'https://api.linkedin.com',
    authUrl: 'https://www.linkedin.com',
    tokenUrl: 'https://www.linkedin.com',
  },
  // Posts API "Delete Posts" (DELETE /rest/posts/{urn}) with the w_member_social channels grant;
  // a thread's later parts are comments, which LinkedIn removes with their post (linkedin-posts.ts).
  removal: linkedinRemoval,
};
