import type { PlatformModule } from '../kit/platform-module.ts';
import { linkedin } from './definition.ts';

export const linkedinModule: PlatformModule = {
  definition: linkedin,
};
