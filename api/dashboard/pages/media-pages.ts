import type Router from '@koa/router';
import { z } from 'zod';
import {
  deleteUnusedMedia, listMedia, mediaPageLimits, mediaUses,
} from '../../../shared/domain/media/media-library.ts';
import { mediaView } from '../../../shared/domain/media/media-view.ts';
import { DomainError } from '../../../shared/errors.ts';
import { uploadAndInspect } from '../dashboard-upload.ts';
import { html } from '../html.ts';
import { sentence } from '../html-errors.ts';
import type { MessageKey } from '../i18n/messages-en.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { renderPage } from '../layout.ts';
import { libraryTile, uploadZone } from '../media-library/media-library-view.ts';
import { parseForm } from '../posts/parse-form.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';
import type { ComposerDeps } from '../compose/composer-deps.ts';

/** The library's query in the reader's words: a refusal names the problem in them. */
const libraryQueryIn = (t: Translate) => z.object({
  cursor: z.string().regex(/^[0-9a-f]{24}$/, t('media.cursorInvalid')).optional(),
});

/** What media-upload.js says beside each file. */
const uploadScriptWords: readonly MessageKey[] = [
  'media.uploadOf', 'media.uploaded', 'media.uploadedProcessing', 'media.uploadFailedStatus', 'media.uploadInterrupted',
];

async function renderLibrary(
  ctx: DashboardRouterContext, deps: ComposerDeps, problem: string | null = null, status = 200,
): Promise<void> {
  const organizationId = signedIn(ctx).organization.id;
  const t = words(ctx);
  const { cursor } = parseForm(libraryQueryIn(t), ctx.query);
  const page = await listMedia(deps.db, organizationId, { limit: mediaPageLimits.default, cursor });
  const uses = await mediaUses(deps.db, organizationId, page.media);
  const tiles = page.media.map((media) => libraryTile(ctx, t, mediaView(media), uses.get(media._id.toHexString())));
  renderPage(ctx, {
    title: t('media.title'),
    status,
    wide: true,
    scripts: ['media-upload.js'],
    scriptWords: uploadScriptWords,
    body: html`${problem === null ? '' : html`<p class="error" role="alert">${problem}</p>`}
${uploadZone(ctx, t)}
${tiles.length === 0
    ? html`<p class="muted">${t('media.empty')}</p>`
    : html`<ul class="media-grid">${tiles}</ul>`}
${page.cursor === null ? '' : html`<p><a href="/media?cursor=${page.cursor}">${t('media.olderFiles')}</a></p>`}
<p class="muted">${t('media.uploadNote')}</p>`,
  });
}

/** The media library: the organization's files, where each is used, upload and delete. */
export function registerMediaPages(router: Router<DashboardState>, deps: ComposerDeps): void {
  router.get('/media', requireSignIn(), async (ctx) => {
    await renderLibrary(ctx, deps);
  });

  // The page's script sends one file here with the CSRF token in a header, as the composer's does.
  router.post('/media/upload', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const decision = await deps.limiter.hit(`org:${organizationId}`);
    if (!decision.allowed) {
      const minutes = Math.ceil(decision.resetSeconds / 60);
      throw new DomainError('rate_limited', words(ctx).count('media.rateLimited', minutes, { limit: decision.limit }));
    }
    const { media, finished } = await uploadAndInspect(ctx, deps, organizationId);
    ctx.status = finished ? 201 : 202;
    ctx.body = { id: media._id.toHexString(), status: finished ? 'ready' : 'pending' };
  });

  router.post('/media/:id/delete', requireSignIn(), async (ctx) => {
    try {
      await deleteUnusedMedia(deps, signedIn(ctx).organization.id, ctx.params.id ?? '');
    } catch (error) {
      // Refused while a scheduled post uses it: the library again, saying which posts hold it.
      if (!(error instanceof DomainError) || error.code !== 'media_in_use') throw error;
      await renderLibrary(ctx, deps, sentence(error.message), error.status);
      return;
    }
    ctx.redirect('/media');
  });
}
