import type { PlatformModule } from '../kit/platform-module.ts';
import { createLemmyAdapter } from './adapter.ts';
import { lemmyConnect } from './connect.ts';
import { lemmy } from './definition.ts';

export const lemmyModule: PlatformModule = {
  definition: lemmy,
  connect: lemmyConnect,
  createAdapter: createLemmyAdapter,
  // POST /api/v3/post/delete and /comment/delete: marked deleted by their creator.
  removal: { supported: true, method: 'delete', note: 'Lemmy marks the post or comment deleted by its creator' },
};
