import type Router from '@koa/router';
import { z } from 'zod';
import { postLimits } from '../../public/posts/schema.ts';
import type { DashboardLocale } from '../i18n/locale.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { html } from '../html.ts';
import { parseForm } from '../posts/parse-form.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardState } from '../state.ts';
import type { ComposerDeps } from './composer-deps.ts';
import { mediaCursorPattern } from './composer-form.ts';
import { olderLibraryPage } from './composer-media.ts';
import { mediaTile, moreMedia } from './media-picker-view.ts';

/** At most this many shown older files named in `shown`: an edited post's, a few per part. */
const maxShown = 200;

/**
 * `?before=<cursor>&parts=N&shown=<id>,<id>`: the page after the cursor, tiles offering each of the
 * post's N parts, without the files already shown. Refusals are in the reader's language.
 */
const libraryQueryIn = (t: Translate) => z.object({
  before: z.string({ error: t('compose.formMediaBefore') }).regex(mediaCursorPattern, t('compose.formMediaBefore')),
  parts: z.coerce.number({ error: t('compose.uploadParts', { max: postLimits.partsPerPost }) }).int()
    .min(1, t('compose.uploadParts', { max: postLimits.partsPerPost }))
    .max(postLimits.partsPerPost, t('compose.uploadParts', { max: postLimits.partsPerPost })).default(1),
  shown: z.string({ error: t('compose.libraryShown') })
    .regex(new RegExp(`^[0-9a-f]{24}(?:,[0-9a-f]{24}){0,${String(maxShown - 1)}}$`), t('compose.libraryShown'))
    .transform((ids) => ids.split(',')).optional(),
});

const libraryQueries = new Map<DashboardLocale, ReturnType<typeof libraryQueryIn>>();

function libraryQuery(t: Translate): ReturnType<typeof libraryQueryIn> {
  let schema = libraryQueries.get(t.locale);
  if (schema === undefined) {
    schema = libraryQueryIn(t);
    libraryQueries.set(t.locale, schema);
  }
  return schema;
}

/**
 * "Show older files" with htmx: the next page of the library as tiles to add to the composer's
 * grid, not attached, and the control replaced out of band by the next page's (or by nothing at
 * the end). A GET: it reads the library only, the picks stay in the form.
 */
export function registerComposerLibrary(router: Router<DashboardState>, deps: ComposerDeps): void {
  router.get('/compose/library', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const t = words(ctx);
    const { before, parts, shown = [] } = parseForm(libraryQuery(t), ctx.query);
    const page = await olderLibraryPage(deps.db, organizationId, before, new Set(shown));
    const unused = { part: '', alt: '' };
    const tiles = page.media.map((media) => mediaTile(media, parts, unused, t));
    const { next } = page;
    const ahead = next === null ? [] : shown.filter((id) => id < next);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html`${tiles}${moreMedia(next, parts, ahead, t, true)}`.markup;
  });
}
