import { DateTime } from 'luxon';
import type { Database } from '../../../shared/db/database.ts';
import { findFreeSlot } from '../../../shared/domain/channels/find-slot.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { ComposerChannel } from './composer-channels.ts';
import type { ComposerRequest } from './composer-request.ts';

const localTime = (instant: Date, zone: string): string =>
  `${DateTime.fromJSDate(instant, { zone }).toFormat('ccc d LLL yyyy, HH:mm')} (${zone})`;

/**
 * When the post would go out on this channel, in the channel's time zone: what the person
 * checks before sending. The queue's slot is the one POST /posts would take now (find-slot.ts);
 * a full schedule is left to the dry run, which names it on the channel.
 */
export async function channelTiming(
  db: Database,
  organizationId: string,
  channel: ComposerChannel,
  request: ComposerRequest,
  now: Date,
): Promise<string> {
  const { type, date } = request.input;
  if (type === 'draft') return 'Kept as a draft: not published until scheduled.';
  if (type === 'now') return 'Published as soon as it is sent.';
  if (type === 'schedule') {
    return date === undefined ? 'Choose a date and time.' : `Published on ${localTime(date, channel.timeZone)}.`;
  }
  try {
    const slot = await findFreeSlot(db, organizationId, channel.id, now);
    return `Next free queue slot: ${localTime(slot, channel.timeZone)}.`;
  } catch (error) {
    if (!(error instanceof DomainError) || (error.code !== 'conflict' && error.code !== 'not_found')) throw error;
    return 'No free queue slot.';
  }
}
