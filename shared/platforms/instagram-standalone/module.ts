import type { PlatformModule } from '../kit/platform-module.ts';
import { instagramStandalone } from './definition.ts';

export const instagramStandaloneModule: PlatformModule = {
  definition: instagramStandalone,
};
