import type { PlatformModule } from '../kit/platform-module.ts';
import { telegram } from './definition.ts';

export const telegramModule: PlatformModule = {
  definition: telegram,
};
