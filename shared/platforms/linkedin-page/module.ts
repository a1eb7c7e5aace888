import type { PlatformModule } from '../kit/platform-module.ts';
import { linkedinPage } from './definition.ts';

export const linkedinPageModule: PlatformModule = {
  definition: linkedinPage,
};
