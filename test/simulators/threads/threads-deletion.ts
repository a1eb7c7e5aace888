import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { unsupportedRequest } from '../facebook/meta-graph-simulation.ts';
import type { SimulatedThread } from './threads-records.ts';

/**
 * `DELETE /v1.0/{media-id}` (Threads API docs, "Delete posts"): the profile's own post or reply
 * goes for good and the answer names it; another profile's, an unknown or an already deleted one
 * is Graph's "does not exist" refusal (400, code 100, subcode 33), as for a read of it.
 */
export function deleteThread(threads: SimulatedThread[], id: string, user: string): SimulatedAnswer {
  const index = threads.findIndex((thread) => thread.id === id && thread.owner === user);
  if (index === -1) return unsupportedRequest(id, 'delete');
  threads.splice(index, 1);
  return { status: 200, body: { success: true, deleted_id: id } };
}
