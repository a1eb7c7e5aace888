import type { PlatformModule } from '../kit/platform-module.ts';
import { nostr } from './definition.ts';

export const nostrModule: PlatformModule = {
  definition: nostr,
};
