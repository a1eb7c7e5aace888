import type { PlatformModule } from '../kit/platform-module.ts';
import { gmb } from './definition.ts';

export const gmbModule: PlatformModule = {
  definition: gmb,
};
