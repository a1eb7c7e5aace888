import { DateTime } from 'luxon';
import type { Database } from '../../../shared/db/database.ts';
import { findFreeSlot } from '../../../shared/domain/channels/find-slot.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardLocale } from '../i18n/locale.ts';
import type { Translate } from '../i18n/translate.ts';
import type { ComposerChannel } from './composer-channels.ts';
import type { ComposerRequest } from './composer-request.ts';

/** A publishing time as each language writes a date: "Wed 5 Mar 2031, 10:00", "Mi., 5. März 2031, 10:00". */
const dateTimeFormats: Record<DashboardLocale, string> = {
  en: 'ccc d LLL yyyy, HH:mm', // not-ui-text
  de: 'EEE, d. MMM yyyy, HH:mm', // not-ui-text
};

const localTime = (instant: Date, zone: string, t: Translate): string =>
  `${DateTime.fromJSDate(instant, { zone }).setLocale(t.locale).toFormat(dateTimeFormats[t.locale])} (${zone})`;

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
  t: Translate,
): Promise<string> {
  const { type, date } = request.input;
  if (type === 'draft') return t('compose.timingDraft');
  if (type === 'now') return t('compose.timingNow');
  if (type === 'schedule') {
    return date === undefined
      ? t('compose.timingChooseDate')
      : t('compose.timingAt', { time: localTime(date, channel.timeZone, t) });
  }
  try {
    const slot = await findFreeSlot(db, organizationId, channel.id, now);
    return t('compose.timingQueue', { time: localTime(slot, channel.timeZone, t) });
  } catch (error) {
    if (!(error instanceof DomainError) || (error.code !== 'conflict' && error.code !== 'not_found')) throw error;
    return t('compose.timingNoSlot');
  }
}
