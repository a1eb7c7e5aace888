import type { PlatformModule } from '../kit/platform-module.ts';
import { createWordpressAdapter } from './adapter.ts';
import { wordpressConnect } from './connect.ts';
import { wordpress } from './definition.ts';

export const wordpressModule: PlatformModule = {
  definition: wordpress,
  connect: wordpressConnect,
  createAdapter: createWordpressAdapter,
  // DELETE /wp/v2/<type>/<id> without force: to the trash, which an editor can restore; not destroyed.
  removal: { supported: true, method: 'trash' },
};
