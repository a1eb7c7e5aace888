import type { PlatformCallPayload } from '../../queue/queues.ts';

/**
 * The api's way to ask a worker for a synchronous platform answer (ARCHITECTURE rule 1): the
 * call is queued and awaited with a bounded wait.
 */
export interface PlatformCaller {
  call(request: PlatformCallPayload): Promise<unknown>;
}

export interface RecentItem {
  id: string;
  url: string;
}
