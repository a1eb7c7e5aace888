import type { PlatformModule } from '../kit/platform-module.ts';
import { youtube } from './definition.ts';

export const youtubeModule: PlatformModule = {
  definition: youtube,
};
