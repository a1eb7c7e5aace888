import type { PlatformCallRequest } from './platform-call-request.ts';

/**
 * The api's way to ask a worker for a synchronous platform answer (ARCHITECTURE rule 1): the
 * call is queued and awaited with a bounded wait.
 */
export interface PlatformCaller {
  call(request: PlatformCallRequest): Promise<unknown>;
}

export interface RecentItem {
  id: string;
  url: string;
}
