import type { PlatformModule } from '../kit/platform-module.ts';
import { telegramConnect } from './connect.ts';
import { telegram } from './definition.ts';

export const telegramModule: PlatformModule = {
  definition: telegram,
  urls: { apiUrl: 'https://api.telegram.org' },
  connect: telegramConnect,
};
