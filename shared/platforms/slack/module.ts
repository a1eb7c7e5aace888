import type { PlatformModule } from '../kit/platform-module.ts';
import { createSlackAdapter } from './adapter.ts';
import { slackConnect } from './connect.ts';
import { slack } from './definition.ts';

export const slackModule: PlatformModule = {
  definition: slack,
  urls: { apiUrl: 'https://slack.com/api', authUrl: 'https://slack.com', tokenUrl: 'https://slack.com/api' },
  connect: slackConnect,
  createAdapter: createSlackAdapter,
};
