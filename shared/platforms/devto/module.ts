import type { PlatformModule } from '../kit/platform-module.ts';
import { devto } from './definition.ts';

export const devtoModule: PlatformModule = {
  definition: devto,
};
