import type Router from '@koa/router';
import { z } from 'zod';
import type { PublicApiDeps } from '../../public/public-api-deps.ts';
import { presentPost } from '../../public/posts/present.ts';
import { postAnalytics, type ReadAnalyticsDeps } from '../../../shared/domain/analytics/read-analytics.ts';
import type { AnalyticsSeries } from '../../../shared/domain/analytics/analytics-series.ts';
import type { CreatePostsDeps } from '../../../shared/domain/posts/create-posts.ts';
import { deletePost, type PostChangeDeps } from '../../../shared/domain/posts/post-changes.ts';
import { missingReleaseId } from '../../../shared/domain/posts/missing-release-id.ts';
import { getReadablePost, type PostWithThread } from '../../../shared/domain/posts/post-queries.ts';
import { retryUnpublishedParts, type RetryDeps } from '../../../shared/domain/posts/retry-post.ts';
import { undeclaredRemoval } from '../../../shared/domain/removal/removal-plan.ts';
import { findPlatformModule } from '../../../shared/platforms/platforms.ts';
import { moveFormIn, reschedulePost } from '../calendar/reschedule-post.ts';
import { editablePost } from '../compose/composer-origin.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { renderPage } from '../layout.ts';
import { parseForm } from '../posts/parse-form.ts';
import { postStory, type PostActions } from '../posts/post-story-view.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

/** What the post page acts with: the domain functions of POST /posts, retry, delete and analytics. */
export type PostPageDeps = DashboardDeps & CreatePostsDeps & RetryDeps & PostChangeDeps & ReadAnalyticsDeps
  & Pick<PublicApiDeps, 'removals'>;

/** The delete form in the reader's words (a refusal names the problem in them). */
const deleteFormIn = (t: Translate) => z.object({
  on_platform: z.literal('yes', { error: t('post.onPlatformInvalid') }).optional(),
});

/** Only posts the platform may have counters for are asked; the read is the one GET /analytics/post/:id makes. */
async function analyticsOf(
  deps: PostPageDeps, organizationId: string, found: PostWithThread,
): Promise<AnalyticsSeries[]> {
  const { root } = found;
  if (root.deletedAt !== null || root.state !== 'PUBLISHED' || root.releaseId === null) return [];
  const answer = await postAnalytics(deps, organizationId, root._id.toString(), 7);
  return Array.isArray(answer.body) ? answer.body : [];
}

function actionsOf(found: PostWithThread, analytics: AnalyticsSeries[]): PostActions {
  const { root, parts, channel } = found;
  const failedOffPlatform = parts.some((part) => part.state === 'ERROR' && (part.releaseId ?? null) === null);
  const blocked = root.state === 'DRAFT'
    || parts.some((part) => part.state === 'QUEUE' || part.releaseId === missingReleaseId);
  return {
    canRetry: failedOffPlatform && !blocked,
    canMove: root.state === 'QUEUE',
    canEdit: editablePost(found),
    removal: channel === null ? undeclaredRemoval : findPlatformModule(channel.provider)?.removal ?? undeclaredRemoval,
    onPlatform: parts.some((part) => (part.releaseId ?? null) !== null),
    analytics,
  };
}

/** JSON for the calendar's drag (it asks with Accept: application/json); a page for forms. */
const wantsJson = (ctx: DashboardRouterContext): boolean => ctx.accepts('html', 'json') === 'json';

export function registerPostDetailPages(router: Router<DashboardState>, deps: PostPageDeps): void {
  router.get('/posts/:id', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const found = await getReadablePost(deps.db, organizationId, ctx.params.id ?? '');
    const post = presentPost(found);
    const excerpt = post.content.length > 40 ? `${post.content.slice(0, 39)}…` : post.content;
    const t = words(ctx);
    renderPage(ctx, {
      title: t('post.title', { excerpt: excerpt === '' ? post.id : excerpt }),
      body: postStory(ctx, t, post, actionsOf(found, await analyticsOf(deps, organizationId, found))),
    });
  });

  router.post('/posts/:id/retry', requireSignIn(), async (ctx) => {
    const post = await retryUnpublishedParts(deps, signedIn(ctx).organization.id, ctx.params.id ?? '');
    ctx.redirect(`/posts/${post.root._id.toString()}`);
  });

  router.post('/posts/:id/delete', requireSignIn(), async (ctx) => {
    const form = parseForm(deleteFormIn(words(ctx)), ctx.request.body);
    const onPlatform = form.on_platform === 'yes';
    const { id } = await deletePost(deps, signedIn(ctx).organization.id, ctx.params.id ?? '', { onPlatform });
    // Deleted on the platform, the post stays readable with its removal; otherwise it is gone.
    ctx.redirect(onPlatform ? `/posts/${id}` : '/posts');
  });

  router.post('/posts/:id/move', requireSignIn(), async (ctx) => {
    const t = words(ctx);
    const { publish_at: publishAt } = parseForm(moveFormIn(t), ctx.request.body);
    const moved = await reschedulePost(deps, t, signedIn(ctx).organization.id, ctx.params.id ?? '', publishAt);
    if (wantsJson(ctx)) {
      ctx.body = moved;
      return;
    }
    ctx.redirect(`/posts/${moved.id}`);
  });
}
