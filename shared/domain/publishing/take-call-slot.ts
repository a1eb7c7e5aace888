import type { CallSlot } from './platform-call-slots.ts';
import { callSlotRequestFor, sameCallSlot } from './call-slot-request.ts';
import { prepareThread, type NothingToCall, type PreparedThread, type PublishHints } from './prepare-thread.ts';
import type { PublishRunDeps } from './publish-deps.ts';

/** A slot taken, and the thread as it was read last, which is what is sent. */
export interface HeldCallSlot {
  kind: 'held';
  slot: CallSlot;
  prepared: PreparedThread;
}

/**
 * Waits for the slot the thread publishes in (call-slot-request.ts), unless its account already has
 * as many publishes waiting in this process as it may: then the post waits in the queue instead
 * (`waiting`, until about when the account's waiters are through). Other publishes may have
 * held it a while: after a wait longer than `readsFreshMs` the thread is read again, since the
 * post may have been deleted, moved or edited meanwhile and is sent as it is now, or not at all;
 * a thread that now needs another slot (a video added) gives this one back and waits for that one.
 */
export async function takeCallSlot(
  deps: PublishRunDeps,
  postId: string,
  hints: PublishHints,
  prepared: PreparedThread,
): Promise<HeldCallSlot | NothingToCall> {
  let wanted = callSlotRequestFor(prepared);
  for (;;) {
    const slot = await deps.callSlots.takeUnlessCrowded(wanted, hints.turn);
    if (slot === null) {
      return { kind: 'waiting', until: new Date(deps.now().getTime() + deps.callSlots.crowdedWaitMs(wanted)) };
    }
    if (slot.waitedMs <= deps.callSlots.readsFreshMs) return { kind: 'held', slot, prepared };
    let again: PreparedThread | NothingToCall;
    let needed = wanted;
    try {
      again = await prepareThread(deps, postId, hints);
      if (again.kind === 'prepared') needed = callSlotRequestFor(again);
    } catch (error) {
      slot.release();
      throw error;
    }
    if (again.kind !== 'prepared') {
      slot.release();
      return again;
    }
    if (sameCallSlot(needed, wanted)) return { kind: 'held', slot, prepared: again };
    slot.release();
    prepared = again;
    wanted = needed;
  }
}
