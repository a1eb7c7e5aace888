import type { Types } from 'mongoose';
import type { PlatformRemoval } from '../../platforms/kit/platform-removal.ts';
import { missingReleaseId } from '../posts/missing-release-id.ts';
import type { PartRemovalState } from './removal-states.ts';

/** One part's first removal state, as DELETE /posts/:id?onPlatform=true writes it. */
export interface PlannedPartRemoval {
  partId: Types.ObjectId;
  state: Extract<PartRemovalState, 'queued' | 'not_published' | 'unconfirmed' | 'unsupported'>;
  method: string | null;
  reason: string | null;
}

/** A platform whose room has not declared removal yet reads as not built. */
export const undeclaredRemoval: PlatformRemoval = {
  supported: false, why: 'not_built', reason: 'SPS does not remove items from this platform yet',
};

/**
 * What becomes of each part: published ones are queued where the platform removes, unsupported
 * (with the room's reason) where it cannot; parts the platform never got are not_published, and
 * a part whose item SPS does not know (release id "missing") is unconfirmed.
 */
export function planRemoval(
  parts: readonly { _id: Types.ObjectId; releaseId?: string | null }[],
  removal: PlatformRemoval,
): PlannedPartRemoval[] {
  return parts.map((part) => {
    const releaseId = part.releaseId ?? null;
    if (releaseId === null) {
      return { partId: part._id, state: 'not_published', method: null, reason: 'the platform never received it' };
    }
    if (releaseId === missingReleaseId) {
      return {
        partId: part._id, state: 'unconfirmed', method: null,
        reason: 'the platform may have published it, and SPS does not know which item it became: check the account',
      };
    }
    if (!removal.supported) return { partId: part._id, state: 'unsupported', method: null, reason: removal.reason };
    return { partId: part._id, state: 'queued', method: removal.method, reason: null };
  });
}
