import { createLinkedinPageAdapter } from './adapter.ts';
import type { PlatformModule } from '../kit/platform-module.ts';
import { linkedinPageConnect } from './connect.ts';
import { linkedinPage } from './definition.ts';
import { linkedinRemoval } from '../linkedin-family/linkedin-removal.ts';

export const linkedinPageModule: PlatformModule = {
  definition: linkedinPage,
  createAdapter: createLinkedinPageAdapter,
  connect: linkedinPageConnect,
  urls: {
    apiUrl: 'https://api.linkedin.com',
    authUrl: 'https://www.linkedin.com',
    tokenUrl: 'https://www.linkedin.com',
  },
  // As for linkedin, with the w_organization_social a Page channel grants (its member's Page role).
  removal: linkedinRemoval,
};
