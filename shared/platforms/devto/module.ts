import type { PlatformModule } from '../kit/platform-module.ts';
import { createDevtoAdapter } from './adapter.ts';
import { devtoConnect } from './connect.ts';
import { devto } from './definition.ts';

export const devtoModule: PlatformModule = {
  definition: devto,
  urls: { apiUrl: 'https://dev.to/api' },
  connect: devtoConnect,
  createAdapter: createDevtoAdapter,
  // No delete for users (the unpublish call is admin-only): PUT /api/articles/:id with published false.
  removal: { supported: true, method: 'unpublish', note: 'the article goes back to the author\'s drafts' },
};
