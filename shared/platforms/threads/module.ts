import type { PlatformModule } from '../kit/platform-module.ts';
import { removalNotBuilt } from '../kit/platform-removal.ts';
import { createThreadsAdapter } from './adapter.ts';
import { threadsConnect } from './connect.ts';
import { threads } from './definition.ts';

/** Consent on threads.com (older pages say threads.net, which forwards there); the API on graph.threads.net. */
export const threadsModule: PlatformModule = {
  definition: threads,
  urls: { apiUrl: 'https://graph.threads.net', authUrl: 'https://threads.com', tokenUrl: 'https://graph.threads.net' },
  connect: threadsConnect,
  createAdapter: (options, app) => createThreadsAdapter(options, app),
  // Connect asks for threads_basic, content_publish, manage_replies, read_replies and manage_insights,
  // not threads_delete; no description SPS holds has the DELETE. Building it means asking for it.
  removal: removalNotBuilt('DELETE /{threads-media-id}, with the threads_delete permission channels lack'),
};
