import type { PlatformModule } from '../kit/platform-module.ts';
import { medium } from './definition.ts';

export const mediumModule: PlatformModule = {
  definition: medium,
};
