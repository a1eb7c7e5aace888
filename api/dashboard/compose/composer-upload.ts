import type Router from '@koa/router';
import { z } from 'zod';
import { drainRefusedUpload } from '../../public/uploads/refused-upload-drain.ts';
import { postLimits } from '../../public/posts/schema.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { ComposerDeps } from './composer-deps.ts';
import { uploadAndInspect } from '../dashboard-upload.ts';
import { words } from '../i18n/translate.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardState } from '../state.ts';
import { budgetReset, budgetWindow } from './budget-words.ts';
import { composerMedia } from './composer-media.ts';
import { mediaTile } from './media-picker-view.ts';

/** `?parts=N`: how many parts the composer has, so the new tile offers each of them. */
const uploadQuery = z.object({
  parts: z.coerce.number().int().min(1).max(postLimits.partsPerPost).default(1),
});

/**
 * Upload in place: the composer's script sends one file here with the session and the CSRF token
 * in a header; it is stored, recorded and inspected by the same code as the API's POST /upload,
 * on the organization's same hourly budget, and answered as the tile the composer adds.
 */
export function registerComposerUpload(router: Router<DashboardState>, deps: ComposerDeps): void {
  router.post('/compose/upload', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const t = words(ctx);
    const query = uploadQuery.safeParse(ctx.query);
    const decision = await deps.limiter.hit(`org:${organizationId}`);
    if (!query.success || !decision.allowed) {
      // Refused before the file is read: the rest is drained so that the browser gets the answer.
      drainRefusedUpload(ctx.req, ctx.res, ctx.state.log);
      if (!query.success) {
        throw new DomainError('validation_failed', t('compose.uploadParts', { max: postLimits.partsPerPost }));
      }
      throw new DomainError('rate_limited', t('compose.uploadBudgetSpent', {
        limit: decision.limit, window: budgetWindow(decision, t), reset: budgetReset(decision, t),
      }));
    }
    const { parts } = query.data;
    const { media, finished } = await uploadAndInspect(ctx, deps, organizationId);
    // Read again: the worker added the poster frame and the facts the platforms' rules read.
    const current = (await deps.db.media.findById(media._id).lean()) ?? media;
    const tile = composerMedia(current);
    if (tile === null) throw new DomainError('unreadable_media', t('compose.uploadUnreadable'));
    ctx.status = finished ? 201 : 202;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = mediaTile(tile, parts, { part: '0', alt: '' }, t).markup;
  });
}
