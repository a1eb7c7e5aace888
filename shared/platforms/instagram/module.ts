import type { PlatformModule } from '../kit/platform-module.ts';
import { instagram } from './definition.ts';

export const instagramModule: PlatformModule = {
  definition: instagram,
};
