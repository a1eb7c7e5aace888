import type { PlatformModule } from '../kit/platform-module.ts';
import { createRedditAdapter } from './adapter.ts';
import { redditConnect } from './connect.ts';
import { reddit } from './definition.ts';

export const redditModule: PlatformModule = {
  definition: reddit,
  connect: redditConnect,
  urls: { apiUrl: 'https://oauth.reddit.com', authUrl: 'https://www.reddit.com', tokenUrl: 'https://www.reddit.com' },
  // Submissions, comments, uploads and tools call oauth.reddit.com (REDDIT_API_URL).
  createAdapter: (options, app) => createRedditAdapter(options, app),
  // POST /api/del with the `edit` scope, asked at connect; channels connected before must connect again.
  removal: {
    supported: true,
    method: 'delete',
    note: 'Reddit deletes the post or comment; channels connected before SPS asked for the edit scope must reconnect',
  },
};
