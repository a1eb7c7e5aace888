import type { PlatformModule } from '../kit/platform-module.ts';
import { createSlackAdapter } from './adapter.ts';
import { slackConnect } from './connect.ts';
import { slack } from './definition.ts';

export const slackModule: PlatformModule = {
  definition: slack,
  urls: { apiUrl: 'https://slack.com/api', authUrl: 'https://slack.com', tokenUrl: 'https://slack.com/api' },
  connect: slackConnect,
  createAdapter: createSlackAdapter,
  // chat.delete: the bot's own message, gone for good (a thread's replies first).
  removal: { supported: true, method: 'delete' },
};
