import type { PlatformModule } from '../kit/platform-module.ts';
import { createRedditAdapter } from './adapter.ts';
import { redditConnect } from './connect.ts';
import { reddit } from './definition.ts';
import { removalNotBuilt } from '../kit/platform-removal.ts';

export const redditModule: PlatformModule = {
  definition: reddit,
  connect: redditConnect,
  urls: { apiUrl: 'https://oauth.reddit.com', authUrl: 'https://www.reddit.com', tokenUrl: 'https://www.reddit.com' },
  // Submissions, comments, uploads and tools call oauth.reddit.com (REDDIT_API_URL).
  createAdapter: (options, app) => createRedditAdapter(options, app),
  // Channels connected so far did not grant the `edit` scope /api/del needs: building it means asking for it.
  removal: removalNotBuilt('POST /api/del deletes a submission or comment, with the edit scope channels lack'),
};
