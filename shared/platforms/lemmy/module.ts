import type { PlatformModule } from '../kit/platform-module.ts';
import { lemmyConnect } from './connect.ts';
import { lemmy } from './definition.ts';

export const lemmyModule: PlatformModule = {
  definition: lemmy,
  connect: lemmyConnect,
};
