import { PlatformError } from './platform-error.ts';

/**
 * How a published item leaves the platform when its post is deleted with `onPlatform=true`:
 * - delete: the platform removes the item for good;
 * - unpublish: the item stays in the account, hidden from readers (a draft again);
 * - trash: the item goes to the platform's bin, where the account can restore it for a while.
 */
export type RemovalMethod = 'delete' | 'unpublish' | 'trash';

/**
 * What a platform's room says about taking published items off the platform. Supported rooms
 * implement `PlatformAdapter.remove`; the others say why not, in words API users read:
 * - cannot: the platform's API offers no way (the reason cites what it lacks);
 * - not_built: the platform's API could, SPS does not do it yet.
 */
export type PlatformRemoval =
  | {
    readonly supported: true;
    readonly method: RemovalMethod;
    readonly note?: string;
    /**
     * The platform takes a thread's later parts (comments on the first) down with the first: the
     * worker removes the first part alone and settles the others as it went, removed or not.
     */
    readonly laterPartsGoWithFirst?: true;
  }
  | { readonly supported: false; readonly why: 'cannot' | 'not_built'; readonly reason: string };

/** What a room declares when the platform can remove items and SPS has not built it yet. */
export function removalNotBuilt(how: string): PlatformRemoval {
  return { supported: false, why: 'not_built', reason: `the platform can (${how}); SPS does not do it yet` };
}

/**
 * An item the platform no longer has is what a removal wants: a 404 (or 410) answer counts as
 * removed, so a removal retried after a lost answer, or of an item the user deleted by hand,
 * ends as removed instead of failing.
 */
export async function removedEvenIfGone(remove: () => Promise<unknown>): Promise<void> {
  try {
    await remove();
  } catch (error) {
    if (error instanceof PlatformError && (error.httpStatus === 404 || error.httpStatus === 410)) return;
    throw error;
  }
}
