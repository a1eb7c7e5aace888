import type { PlatformModule } from '../kit/platform-module.ts';
import { facebook } from './definition.ts';

export const facebookModule: PlatformModule = {
  definition: facebook,
};
