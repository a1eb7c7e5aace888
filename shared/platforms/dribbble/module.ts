import type { PlatformModule } from '../kit/platform-module.ts';
import { dribbble } from './definition.ts';

export const dribbbleModule: PlatformModule = {
  definition: dribbble,
};
