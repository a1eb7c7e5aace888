import type { PlatformModule } from '../kit/platform-module.ts';
import { slack } from './definition.ts';

export const slackModule: PlatformModule = {
  definition: slack,
};
