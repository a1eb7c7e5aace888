/**
 * Where one part stands in taking its post off the platform (DELETE /posts/:id?onPlatform=true).
 * Persisted on posts and read by clients (GET /posts/:id, post.deleted): renaming one breaks both.
 * - queued: published; the removal worker will take it off the platform;
 * - removing: the worker is at it (or stopped while at it, and will try again);
 * - removed: the platform no longer shows it (it answered that it had gone counts);
 * - failed: the platform refused, or kept failing until SPS stopped trying (category, message);
 * - not_published: the platform never got it, so there is nothing to remove;
 * - unconfirmed: the platform may have it (release id "missing"), and SPS does not know which item;
 * - unsupported: the platform's API cannot remove it, or SPS does not do it yet (reason).
 */
export const partRemovalStates = [
  'queued', 'removing', 'removed', 'failed', 'not_published', 'unconfirmed', 'unsupported',
] as const;
export type PartRemovalState = (typeof partRemovalStates)[number];

/** The states the worker has still to settle; every other one is final. */
export function removalPending(state: string): boolean {
  return state === 'queued' || state === 'removing';
}
