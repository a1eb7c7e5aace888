import { z } from 'zod';
import { postLimits } from '../../public/posts/schema.ts';
import { DomainError } from '../../../shared/errors.ts';
import { maxIntervalInDays } from '../../../shared/domain/posts/recurrence-rule.ts';
import type { DashboardLocale } from '../i18n/locale.ts';
import type { Translate } from '../i18n/translate.ts';

/** How the composer sends: as soon as possible, at a local time, into the next queue slot, or kept as a draft. */
export const composerWhens = ['now', 'at', 'queue', 'draft'] as const;
export type ComposerWhen = (typeof composerWhens)[number];

/** A field a form may repeat (one value arrives as a string, several as a list), as a list. */
function repeated(item: z.ZodString, max: number, tooMany: string) {
  return z.union([item, z.array(item)]).optional()
    .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))
    .pipe(z.array(z.string()).max(max, tooMany));
}

/** The id of a post the composer edits (`?post=` and the form's hidden field): 24 hexadecimal digits. */
export const postIdPattern = /^[0-9a-f]{24}$/i;

/** A cursor of the media library (listMedia's: the last file of a page it gave). */
export const mediaCursorPattern = /^[0-9a-f]{24}$/;

/** `YYYY-MM-DDTHH:MM`, what an `<input type="datetime-local">` sends (seconds optional). */
const localDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/;

/**
 * The composer's form as the browser posts it, refusing in the reader's language. Parts keep their
 * spaces and line breaks as typed (the platform counts them); `intent` says which button was pressed.
 */
const formSchemaIn = (t: Translate) => z.object({
  part: repeated(z.string(), postLimits.partsPerPost, t('compose.formTooManyParts', { max: postLimits.partsPerPost }))
    .transform((parts) => (parts.length === 0 ? [''] : parts)),
  channel: repeated(z.string().trim().min(1).max(100), postLimits.channelsPerRequest,
    t('compose.formTooManyChannels', { max: postLimits.channelsPerRequest })),
  when: z.enum(composerWhens, { message: t('compose.formWhen') }).default('now'),
  at: z.string().trim().refine((value) => value === '' || localDateTime.test(value), {
    message: t('compose.formAt'),
  }).default(''),
  /** Every how many days the post repeats (intervalInDays), '' for once. */
  repeatDays: z.string().trim().refine((value) => value === '' || (/^\d{1,3}$/.test(value)
    && Number(value) >= 1 && Number(value) <= maxIntervalInDays), {
    message: t('compose.formRepeatDays', { max: maxIntervalInDays }),
  }).default(''),
  /** The shortLink checkbox: links in the text become SPS's own counted short links. */
  shortLink: z.literal('on').optional(),
  intent: z.string().regex(/^(send|check|add-part|more-media|remove-part-\d{1,3})$/, t('compose.formIntent'))
    .default('send'),
  /** Set while editing a post (composer-origin.ts): sending then changes that post instead of creating one. */
  post: z.string().regex(postIdPattern, t('compose.formPost')).optional(),
  /** Set while duplicating a post: the new post takes the tags and delays the form has no field for. */
  copyOf: z.string().regex(postIdPattern, t('compose.formPost')).optional(),
  /** Where the library shown ends: the next older files come after it (absent once all are shown). */
  mediaBefore: z.string().regex(mediaCursorPattern, t('compose.formMediaBefore')).optional(),
  /** `settings[<channel id>][<key>]`: each channel's settings form, as typed (settings-fields.ts reads them). */
  settings: z.record(
    z.string().max(100),
    z.record(z.string().max(100), z.string().max(10_000, t('compose.formSetting'))),
  ).default({}),
  /** `media[<media id>][part]` (the part's index, '' for none) and `[alt]`: the library's files and where they go. */
  media: z.record(z.string().max(100), z.object({
    part: z.string().regex(/^\d{0,3}$/, t('compose.formPartNumber')).default(''),
    alt: z.string().max(1500, t('compose.formAlt')).default(''),
    /** A video's poster: the chosen image's path, '' for its own frame (composer-posters.ts). */
    poster: z.string().max(2048, t('compose.formPoster')).optional(),
  })).default({}),
});

export type ComposerForm = z.infer<ReturnType<typeof formSchemaIn>>;

const formSchemas = new Map<DashboardLocale, ReturnType<typeof formSchemaIn>>();

/** The form's schema in the reader's language, made once per language. */
function composerFormSchema(t: Translate): ReturnType<typeof formSchemaIn> {
  let schema = formSchemas.get(t.locale);
  if (schema === undefined) {
    schema = formSchemaIn(t);
    formSchemas.set(t.locale, schema);
  }
  return schema;
}

/** The media the form attaches to part `index`, with their alt text, in the order the form lists them. */
export function mediaOfPart(form: ComposerForm, index: number): { id: string; alt: string }[] {
  return Object.entries(form.media).filter(([, use]) => use.part === String(index))
    .map(([id, use]) => ({ id, alt: use.alt.trim() }));
}

/** An empty composer: one part, no channel chosen, publish now. */
export const emptyComposerForm: ComposerForm = {
  part: [''], channel: [], when: 'now', at: '', repeatDays: '', intent: 'send', settings: {}, media: {},
};

/** The posted form, or a 400 naming the field (a browser sends none of these wrong; a hand-made form may). */
export function parseComposerForm(body: unknown, t: Translate): ComposerForm {
  const parsed = composerFormSchema(t).safeParse(typeof body === 'object' && body !== null ? body : {});
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  const [first] = details;
  const message = first === undefined ? t('compose.formUnreadable') : `${first.path}: ${first.message}`;
  throw new DomainError('validation_failed', message, details);
}

/** The form after an add-part or remove-part button: the parts changed, nothing sent. */
export function withPartsChanged(form: ComposerForm): ComposerForm {
  if (form.intent === 'add-part' && form.part.length < postLimits.partsPerPost) {
    return { ...form, part: [...form.part, ''] };
  }
  const removed = /^remove-part-(\d+)$/.exec(form.intent)?.[1];
  if (removed === undefined || form.part.length <= 1) return form;
  const index = Number(removed);
  // Media follow their part: those of the removed part are set aside, later ones move up.
  const media = Object.fromEntries(Object.entries(form.media).map(([id, use]) => {
    const part = use.part === '' ? null : Number(use.part);
    const moved = part === null || part === index ? '' : String(part > index ? part - 1 : part);
    return [id, { ...use, part: moved }];
  }));
  return { ...form, media, part: form.part.filter((_part, position) => position !== index) };
}
