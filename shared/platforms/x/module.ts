import type { PlatformModule } from '../kit/platform-module.ts';
import { x } from './definition.ts';

export const xModule: PlatformModule = {
  definition: x,
};
