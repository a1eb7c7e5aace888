import type { PlatformModule } from '../kit/platform-module.ts';
import { discord } from './definition.ts';

export const discordModule: PlatformModule = {
  definition: discord,
};
