import type { PlatformModule } from '../kit/platform-module.ts';
import { hashnode } from './definition.ts';

export const hashnodeModule: PlatformModule = {
  definition: hashnode,
};
