import type { PlatformModule } from '../kit/platform-module.ts';
import { threads } from './definition.ts';

export const threadsModule: PlatformModule = {
  definition: threads,
};
