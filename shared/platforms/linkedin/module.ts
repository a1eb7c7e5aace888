import { createLinkedinAdapter } from './adapter.ts';
import type { PlatformModule } from '../kit/platform-module.ts';
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
};
