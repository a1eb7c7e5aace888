import type { PlatformModule } from '../kit/platform-module.ts';
import { createThreadsAdapter } from './adapter.ts';
import { threadsConnect } from './connect.ts';
import { threads } from './definition.ts';

/** Consent on threads.com (older pages say threads.net, which forwards there); the API on graph.threads.net. */
export const threadsModule: PlatformModule = {
  definition: threads,
  urls: { apiUrl: 'https://graph.threads.net', authUrl: 'https://threads.com', tokenUrl: 'https://graph.threads.net' },
  connect: threadsConnect,
  createAdapter: (options, app) => createThreadsAdapter(options, app),
  // DELETE /{media-id} with threads_delete, asked at connect; channels connected before must connect again.
  removal: {
    supported: true,
    method: 'delete',
    note: 'Threads deletes each post and reply (at most 100 a day per profile); channels connected before SPS '
      + 'asked for threads_delete must reconnect',
  },
};
