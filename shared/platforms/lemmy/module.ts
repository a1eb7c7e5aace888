import type { PlatformModule } from '../kit/platform-module.ts';
import { lemmy } from './definition.ts';

export const lemmyModule: PlatformModule = {
  definition: lemmy,
};
