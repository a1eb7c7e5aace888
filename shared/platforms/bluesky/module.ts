import type { PlatformModule } from '../kit/platform-module.ts';
import { bluesky } from './definition.ts';

export const blueskyModule: PlatformModule = {
  definition: bluesky,
};
