import type { PlatformModule } from '../kit/platform-module.ts';
import { mediumConnect } from './connect.ts';
import { medium } from './definition.ts';

export const mediumModule: PlatformModule = {
  definition: medium,
  urls: { apiUrl: 'https://api.medium.com/v1' },
  connect: mediumConnect,
};
