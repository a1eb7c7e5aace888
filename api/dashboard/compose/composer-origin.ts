import { DateTime } from 'luxon';
import { z } from 'zod';
import type { PostWithThread, StoredPost } from '../../../shared/domain/posts/post-queries.ts';
import type { DashboardLocale } from '../i18n/locale.ts';
import type { PlainKey, Translate } from '../i18n/translate.ts';
import type { ChannelGroup, ComposerChannel } from './composer-channels.ts';
import { postIdPattern, type ComposerForm, type ComposerWhen } from './composer-form.ts';
import type { ComposerMedia } from './composer-media.ts';
import type { ComposerRequests } from './composer-request.ts';
import { settingFields, type SettingField } from './settings-fields.ts';

const querySchemaIn = (t: Translate) => z.object({
  post: z.string({ error: `post: ${t('compose.queryOnePost')}` })
    .regex(postIdPattern, `post: ${t('compose.formPost')}`).optional(),
  copy: z.literal('1', { error: t('compose.queryCopy') }).optional(),
});

const querySchemas = new Map<DashboardLocale, ReturnType<typeof querySchemaIn>>();

/**
 * `/compose?post=<id>` opens a stored post: to edit it while it is still a draft or scheduled, or
 * (`copy=1`, and always once it was published or failed) to duplicate it as a new post. Refusals
 * are in the reader's language; the schema is made once per language.
 */
export function composerQuery(t: Translate): ReturnType<typeof querySchemaIn> {
  let schema = querySchemas.get(t.locale);
  if (schema === undefined) {
    schema = querySchemaIn(t);
    querySchemas.set(t.locale, schema);
  }
  return schema;
}

/** Where the composer's content came from, named above the form. */
export interface ComposerOrigin {
  /** `edit`: sending changes the post; `duplicate`: sending creates a new one, the post stays as it is. */
  mode: 'edit' | 'duplicate';
  postId: string;
  /** The first part's opening words, to name the post. */
  excerpt: string;
  /** Why the composer duplicates rather than edits, when the person asked to edit. */
  note: string | null;
}

/** Why a post that is no longer waiting cannot be edited, by its state. */
const doneReasons: Record<Exclude<StoredPost['state'], 'QUEUE' | 'DRAFT'>, PlainKey> = {
  PUBLISHED: 'compose.reasonPublished', ERROR: 'compose.reasonFailed',
};

/**
 * A draft or a scheduled post none of whose parts reached the platform: what createPosts accepts
 * to edit. A failed post is duplicated instead: its parts' fate on the platform is its history.
 */
export function editablePost({ root, parts }: PostWithThread): boolean {
  const waiting = root.state === 'QUEUE' || root.state === 'DRAFT';
  return waiting && parts.every((part) => (part.releaseId ?? null) === null);
}

/** Why the post cannot be edited, as a clause: "it is published". */
export function notEditableReason(found: PostWithThread, t: Translate): string {
  const { state } = found.root;
  if (state === 'QUEUE' || state === 'DRAFT') return t('compose.reasonOnPlatform');
  return t(doneReasons[state]);
}

export function originOf(
  found: PostWithThread, mode: ComposerOrigin['mode'], note: string | null = null,
): ComposerOrigin {
  const content = found.root.content;
  const excerpt = content.length > 40 ? `${content.slice(0, 39)}…` : content;
  return { mode, postId: found.root._id.toHexString(), excerpt, note };
}

/** A stored setting as its form field shows it; nothing for settings the form cannot show. */
function typedSetting(field: SettingField, value: unknown): string | null {
  if (field.kind === 'api-only' || value === undefined || value === null) return null;
  if (field.kind.endsWith('-list')) return Array.isArray(value) ? value.map(String).join(', ') : null;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}

function typedSettings(channel: ComposerChannel | undefined, stored: unknown): Record<string, string> {
  if (channel === undefined || channel.platform.settings === null) return {};
  const values = typeof stored === 'object' && stored !== null ? stored as Record<string, unknown> : {};
  return Object.fromEntries(settingFields(channel.platform.settings).flatMap((field) => {
    const typed = typedSetting(field, values[field.key]);
    return typed === null ? [] : [[field.key, typed] as const];
  }));
}

/**
 * When the form says to publish: a scheduled post's date and time in its channel's zone, a draft
 * kept a draft; a duplicate of a post whose date has passed goes out now unless changed.
 */
function whenOf(root: StoredPost, zone: string, now: Date): { when: ComposerWhen; at: string } {
  const local = DateTime.fromJSDate(root.publishDate, { zone });
  // Seconds only when the post has some, so an unchanged date is given back as stored (to the second).
  const at = local.toFormat(local.second === 0 ? "yyyy-MM-dd'T'HH:mm" : "yyyy-MM-dd'T'HH:mm:ss");
  const future = root.publishDate.getTime() > now.getTime();
  if (root.state === 'DRAFT') return { when: 'draft', at: future ? at : '' };
  return future ? { when: 'at', at } : { when: 'now', at: '' };
}

/**
 * The composer's form filled from the stored post: each part's text and media with alt text, its
 * channel chosen with its settings, and its date. The form carries the post's id: as the post
 * an edit changes, or as the source a duplicate takes its tags and delays from.
 */
export function prefilledForm(
  found: PostWithThread,
  mode: ComposerOrigin['mode'],
  groups: readonly ChannelGroup[],
  now: Date,
): ComposerForm {
  const { root, parts } = found;
  const channelId = root.channelId.toHexString();
  const channel = groups.flatMap((group) => group.channels).find((one) => one.id === channelId);
  const media: ComposerForm['media'] = {};
  parts.forEach((part, index) => {
    for (const item of part.media) {
      // The form attaches a file to one part: a file used twice stays with its first part.
      media[item.id] ??= { part: String(index), alt: item.alt ?? '' };
    }
  });
  return {
    part: parts.map((part) => part.content),
    channel: [channelId],
    ...whenOf(root, channel?.timeZone ?? 'UTC', now),
    // An occurrence of a series is edited alone: its series goes on as it was.
    repeatDays: '',
    intent: 'send',
    settings: { [channelId]: typedSettings(channel, root.settings) },
    media,
    ...(mode === 'edit' ? { post: root._id.toHexString() } : { copyOf: root._id.toHexString() }),
  };
}

/**
 * The form without the files no longer in the library (deleted since): the form could neither
 * show nor detach them. How many were left out is told above the form.
 */
export function withLibraryMedia(
  form: ComposerForm,
  library: readonly ComposerMedia[],
): { form: ComposerForm; leftOut: number } {
  const known = new Set(library.map((item) => item.id));
  const kept = Object.entries(form.media).filter(([id]) => known.has(id));
  return { form: { ...form, media: Object.fromEntries(kept) }, leftOut: Object.keys(form.media).length - kept.length };
}

/** Stored settings the form does not show (api-only ones): an edit keeps them, as the API would be given them back. */
function keptSettings(channel: ComposerChannel, stored: unknown): Record<string, unknown> {
  if (channel.platform.settings === null || typeof stored !== 'object' || stored === null) return {};
  const shown = new Set(settingFields(channel.platform.settings)
    .filter((field) => field.kind !== 'api-only').map((field) => field.key));
  return Object.fromEntries(Object.entries(stored).filter(([key]) => key !== '__type' && !shown.has(key)));
}

/** The stored post's tags, as POST /posts takes them. */
function storedTags(root: StoredPost): { value: string; label: string }[] {
  return root.tags.map((tag) => ({ value: tag.value, label: tag.label }));
}

type PartsInput = ComposerRequests['requests'][number]['input']['posts'][number]['value'];

/** The form's parts with the stored thread's delays: each reply waits as the stored reply at its place did. */
function withStoredDelays(value: PartsInput, parts: PostWithThread['parts']): PartsInput {
  return value.map((part, position) => (position === 0
    ? part
    : { ...part, delay: parts[position]?.delayMinutes ?? 0 }));
}

/**
 * The form's POST /posts bodies as an edit of the stored post: `value[0].id` names it, and what
 * the composer has no field for (tags, the thread's delays, api-only settings) is given back as
 * stored. An edited post stays on its channel, and only a draft or a scheduled post is edited.
 */
export function asEdit(
  form: ComposerForm, made: ComposerRequests, found: PostWithThread, t: Translate,
): ComposerRequests {
  const { root, parts } = found;
  const postId = root._id.toHexString();
  const channelId = root.channelId.toHexString();
  const picker = [...made.picker];
  if (!editablePost(found)) {
    picker.push(t('compose.noLongerEditableDuplicate', { reason: notEditableReason(found, t) }));
  }
  if (form.channel.some((id) => id !== channelId)) {
    picker.push(t('compose.editStaysOnChannel'));
  }
  const tags = storedTags(root);
  const requests = made.requests.map((request) => ({
    ...request,
    input: {
      ...request.input,
      tags,
      posts: request.input.posts.map((post, index) => {
        const channel = request.channels[index];
        if (post.integration.id !== channelId || channel === undefined) return post;
        const settings = post.settings === undefined
          ? {}
          : { settings: { ...keptSettings(channel, root.settings), ...post.settings } };
        const [first, ...replies] = withStoredDelays(post.value, parts);
        const value = first === undefined ? [] : [{ ...first, id: postId }, ...replies];
        return { ...post, ...settings, value };
      }),
    },
  }));
  return { ...made, requests, picker };
}

/**
 * The form's POST /posts bodies as a new post made from the stored one: like an edit, it takes
 * the stored tags and the thread's delays, which the composer has no field for, on every channel
 * chosen (the thread is the same wherever it goes). Settings are the form's: another channel's
 * platform may not know the stored ones.
 */
export function asDuplicate(made: ComposerRequests, source: PostWithThread): ComposerRequests {
  const tags = storedTags(source.root);
  const requests = made.requests.map((request) => ({
    ...request,
    input: {
      ...request.input,
      tags,
      posts: request.input.posts.map((post) => ({ ...post, value: withStoredDelays(post.value, source.parts) })),
    },
  }));
  return { ...made, requests };
}
