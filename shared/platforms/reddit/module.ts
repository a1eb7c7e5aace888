import type { PlatformModule } from '../kit/platform-module.ts';
import { reddit } from './definition.ts';

export const redditModule: PlatformModule = {
  definition: reddit,
};
