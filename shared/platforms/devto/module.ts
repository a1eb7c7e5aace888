import type { PlatformModule } from '../kit/platform-module.ts';
import { createDevtoAdapter } from './adapter.ts';
import { devtoConnect } from './connect.ts';
import { devto } from './definition.ts';

export const devtoModule: PlatformModule = {
  definition: devto,
  urls: { apiUrl: 'https://dev.to/api' },
  connect: devtoConnect,
  createAdapter: createDevtoAdapter,
};
