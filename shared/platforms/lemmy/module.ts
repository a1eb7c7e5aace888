import type { PlatformModule } from '../kit/platform-module.ts';
import { createLemmyAdapter } from './adapter.ts';
import { lemmyConnect } from './connect.ts';
import { lemmy } from './definition.ts';

export const lemmyModule: PlatformModule = {
  definition: lemmy,
  connect: lemmyConnect,
  createAdapter: createLemmyAdapter,
};
