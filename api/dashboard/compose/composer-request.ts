import { DateTime } from 'luxon';
import type { CreatePostsInput, CreatePostType, MediaReference } from '../../../shared/domain/posts/post-input.ts';
import type { DashboardLocale } from '../i18n/locale.ts';
import type { Translate } from '../i18n/translate.ts';
import type { ChannelGroup, ComposerChannel } from './composer-channels.ts';
import { mediaOfPart, type ComposerForm, type ComposerWhen } from './composer-form.ts';
import type { ComposerMedia } from './composer-media.ts';
import { posterOf } from './composer-posters.ts';
import { settingFields, settingsFromForm } from './settings-fields.ts';

/** One POST /posts body the composer sends: the chosen channels that share a time zone. */
export interface ComposerRequest {
  timeZone: string;
  /** The channels of `input.posts`, in the same order. */
  channels: ComposerChannel[];
  input: CreatePostsInput;
}

/** The form as POST /posts bodies, with what the composer itself refuses before asking the domain. */
export interface ComposerRequests {
  requests: ComposerRequest[];
  /** Problems of the channel choice (none chosen, one removed meanwhile). */
  picker: string[];
  /** Problems of the date and time. */
  schedule: string[];
  /** Problems of the media chosen (a file no longer in the library). */
  media: string[];
}

/** The channel's settings form as the post's settings; nothing when its platform has none. */
function settingsOf(channel: ComposerChannel, form: ComposerForm): { settings?: Record<string, unknown> } {
  if (channel.platform.settings === null) return {};
  return { settings: settingsFromForm(settingFields(channel.platform.settings), form.settings[channel.id] ?? {}) };
}

/** A part's media as POST /posts names them; files no longer in the library are left to the media problems. */
function imagesOf(form: ComposerForm, part: number, library: readonly ComposerMedia[]): MediaReference[] {
  return mediaOfPart(form, part).flatMap(({ id, alt }) => {
    const media = library.find((item) => item.id === id);
    if (media === undefined) return [];
    return [{ id, path: media.path, ...(alt === '' ? {} : { alt }), ...posterOf(form, media) }];
  });
}

const postTypes: Record<ComposerWhen, CreatePostType> = { now: 'now', at: 'schedule', queue: 'queue', draft: 'draft' };

/** A typed time named back as each language writes a date: "1 Jan 2001, 10:00", "1. Jan. 2001, 10:00". */
const typedTimeFormats: Record<DashboardLocale, string> = {
  en: 'd LLL yyyy, HH:mm', // not-ui-text
  de: 'd. MMM yyyy, HH:mm', // not-ui-text
};

/** The typed local time in `zone`, or why it is not a time to publish at. */
function instantIn(at: string, zone: string, now: Date, t: Translate): Date | string {
  const local = DateTime.fromISO(at, { zone });
  if (!local.isValid) return t('compose.notADateTime', { typed: at.replace('T', ' ') });
  if (local.toJSDate() <= now) {
    return t('compose.datePassed', { time: local.setLocale(t.locale).toFormat(typedTimeFormats[t.locale]), zone });
  }
  return local.toJSDate();
}

/**
 * Groups the chosen channels by time zone, since a typed date and time is read in each channel's
 * zone and a POST /posts body has one date: in practice one request, one per zone otherwise.
 */
export function composerRequests(
  form: ComposerForm,
  groups: ChannelGroup[],
  library: readonly ComposerMedia[],
  now: Date,
  t: Translate,
): ComposerRequests {
  const known = new Map(groups.flatMap((group) => group.channels).map((channel) => [channel.id, channel]));
  const chosen = [...new Set(form.channel)].flatMap((id) => known.get(id) ?? []);
  const picker: string[] = [];
  if (chosen.length < new Set(form.channel).size) {
    picker.push(t('compose.channelGone'));
  }
  if (form.channel.length === 0) picker.push(t('compose.chooseChannel'));
  const schedule: string[] = [];
  const attached = Object.entries(form.media).filter(([, use]) => use.part !== '').map(([id]) => id);
  const media = attached.some((id) => !library.some((item) => item.id === id))
    ? [t('compose.mediaGone')]
    : [];
  if (form.when === 'at' && form.at === '') schedule.push(t('compose.chooseDate'));
  // POST /posts takes a recurring post only with type schedule: its first occurrence needs a date.
  if (form.repeatDays !== '' && form.when !== 'at') {
    schedule.push(t('compose.repeatNeedsDate'));
  }
  const byZone = new Map<string, ComposerChannel[]>();
  for (const channel of chosen) byZone.set(channel.timeZone, [...(byZone.get(channel.timeZone) ?? []), channel]);
  const requests = [...byZone].flatMap(([timeZone, channels]): ComposerRequest[] => {
    let date: Date | undefined;
    if (form.when === 'at' && form.at !== '') {
      const instant = instantIn(form.at, timeZone, now, t);
      if (typeof instant === 'string') {
        schedule.push(instant);
        return [];
      }
      date = instant;
    }
    const input: CreatePostsInput = {
      type: postTypes[form.when],
      ...(date === undefined ? {} : { date }),
      // The composer has no tags field: an edit or a duplicate takes the stored post's (composer-origin.ts).
      tags: [],
      ...(form.repeatDays === '' ? {} : { intervalInDays: Number(form.repeatDays) }),
      ...(form.shortLink === 'on' ? { shortLink: true } : {}),
      posts: channels.map((channel) => ({
        integration: { id: channel.id },
        ...settingsOf(channel, form),
        value: form.part.map((content, index) => ({ content, image: imagesOf(form, index, library) })),
      })),
    };
    return [{ timeZone, channels, input }];
  });
  return { requests, picker, schedule, media };
}
