import type { PlatformModule } from '../kit/platform-module.ts';
import { pinterest } from './definition.ts';

export const pinterestModule: PlatformModule = {
  definition: pinterest,
};
