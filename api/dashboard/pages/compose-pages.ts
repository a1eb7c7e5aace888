import type Router from '@koa/router';
import { findEachById } from '../../../shared/db/equality-queries.ts';
import { asObjectId } from '../../../shared/db/object-id.ts';
import { createPosts } from '../../../shared/domain/posts/create-posts.ts';
import { getPost, type PostWithThread } from '../../../shared/domain/posts/post-queries.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { ComposerDeps } from '../compose/composer-deps.ts';
import { html } from '../html.ts';
import { sentence } from '../html-errors.ts';
import { renderPage } from '../layout.ts';
import { parseForm } from '../posts/parse-form.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';
import { budgetReset, budgetWindow } from '../compose/budget-words.ts';
import { composerChannels, type ChannelGroup } from '../compose/composer-channels.ts';
import { checkComposer, type ComposerReport } from '../compose/composer-check.ts';
import { composerChecks, fieldProblems } from '../compose/composer-checks-view.ts';
import { emptyComposerForm, parseComposerForm, withPartsChanged, type ComposerForm } from '../compose/composer-form.ts';
import { composerRequests, type ComposerRequests } from '../compose/composer-request.ts';
import {
  asEdit, composerQuery, editablePost, notEditableReason, originOf, prefilledForm, withLibraryMedia,
  type ComposerOrigin,
} from '../compose/composer-origin.ts';
import { composerLibrary, type ComposerMedia } from '../compose/composer-media.ts';
import { previewParts } from '../compose/preview-parts.ts';
import { registerComposerUpload } from '../compose/composer-upload.ts';
import { composerBody, type ComposerView } from '../compose/composer-view.ts';

export type { ComposerDeps } from '../compose/composer-deps.ts';

/** A check as POST /posts/validate makes it, on its budget; null with the reason when the budget is spent. */
async function budgetedCheck(
  deps: ComposerDeps,
  organizationId: string,
  form: ComposerForm,
  loaded: Loaded,
): Promise<{ report: ComposerReport | null; paused: string | null }> {
  const decision = await deps.postValidationLimiter.hit(`org:${organizationId}`);
  if (!decision.allowed) {
    const paused = `Checks are paused: this organization used its ${decision.limit} checks ${budgetWindow(decision)}. `
      + `They resume in ${budgetReset(decision)}; sending still checks everything.`;
    return { report: null, paused };
  }
  const made = requestsOf(form, loaded, deps.now());
  const report = await checkComposer(deps, organizationId, form, made, loaded.library);
  return { report, paused: null };
}

/**
 * What every composer request reads: the channels to choose from and the library's files; while
 * editing, the stored post (another organization's, or a deleted one, is a 404) and its origin line.
 */
interface Loaded {
  groups: ChannelGroup[];
  library: ComposerMedia[];
  edited: PostWithThread | null;
  origin: ComposerOrigin | undefined;
}

/** The form's POST /posts bodies; while editing, as an edit of the stored post. */
function requestsOf(form: ComposerForm, loaded: Loaded, now: Date): ComposerRequests {
  const made = composerRequests(form, loaded.groups, loaded.library, now);
  return loaded.edited === null ? made : asEdit(form, made, loaded.edited);
}

/** `newest`: the library's newest files too, for a whole page; the live check needs only those attached. */
async function load(deps: ComposerDeps, organizationId: string, form: ComposerForm, newest = true): Promise<Loaded> {
  const attached = Object.entries(form.media).filter(([, use]) => newest || use.part !== '').map(([id]) => id);
  const [groups, library, edited] = await Promise.all([
    composerChannels(deps.db, organizationId),
    composerLibrary(deps.db, organizationId, attached, { newest }),
    form.post === undefined ? null : getPost(deps.db, organizationId, form.post),
  ]);
  return { groups, library, edited, origin: edited === null ? undefined : originOf(edited, 'edit') };
}

const titles = { edit: 'Edit post', duplicate: 'Duplicate post' } as const;

function renderComposer(ctx: DashboardRouterContext, view: ComposerView, status = 200): void {
  const body = composerBody(ctx, view);
  const title = view.origin === undefined ? 'Compose' : titles[view.origin.mode];
  renderPage(ctx, { title, status, wide: true, scripts: ['composer-upload.js'], body });
}

/**
 * `/compose?post=<id>`: the composer filled from the stored post, in edit mode while it is a
 * draft or scheduled, else (or with `copy=1`) as a duplicate. Files deleted from the library since
 * are left out, and said so.
 */
async function openStoredPost(
  ctx: DashboardRouterContext, deps: ComposerDeps, postId: string, copy: boolean,
): Promise<void> {
  const organizationId = signedIn(ctx).organization.id;
  const found = await getPost(deps.db, organizationId, postId);
  const editable = editablePost(found);
  const mode = copy || !editable ? 'duplicate' : 'edit';
  const note = copy || editable ? null : `It cannot be edited: ${notEditableReason(found)}.`;
  const groups = await composerChannels(deps.db, organizationId);
  const filled = prefilledForm(found, mode, groups, deps.now());
  const library = await composerLibrary(deps.db, organizationId, Object.keys(filled.media), { newest: true });
  const { form, leftOut } = withLibraryMedia(filled, library);
  const notice = leftOut === 0
    ? undefined
    : `${leftOut === 1 ? 'One file' : `${leftOut} files`} of the post are no longer in the media library `
      + 'and were left out.';
  renderComposer(ctx, { form, groups, library, report: null, origin: originOf(found, mode, note), notice });
}

/**
 * A POST naming a post that was published (or failed) since the edit began: what was typed is kept
 * as a duplicate, so sending it again makes a new post. A send is refused with 409; the part
 * buttons (nothing sent) answer 200, so that htmx swaps the composer in.
 */
function refuseEdit(ctx: DashboardRouterContext, form: ComposerForm, loaded: Loaded, edited: PostWithThread): void {
  const { post: _edited, ...duplicate } = form;
  const sending = form.intent === 'send';
  const problem = `This post can no longer be edited: ${notEditableReason(edited)}${
    sending ? '; nothing was changed' : ''}. `
    + 'What you wrote is kept below as a new post: send it to publish a duplicate.';
  const view = { ...loaded, form: { ...withPartsChanged(duplicate), intent: 'send' }, report: null, problem };
  renderComposer(ctx, { ...view, origin: originOf(edited, 'duplicate') }, sending ? 409 : 200);
}

/** The UTC days the created posts fall on, so the posts list opens on them. */
async function postsListPath(deps: ComposerDeps, postIds: string[]): Promise<string> {
  const ids = postIds.flatMap((id) => asObjectId(id) ?? []);
  const dates = (await findEachById(deps.db.posts, ids)).map((post) => post.publishDate.getTime());
  const now = deps.now().getTime();
  const day = (time: number): string => new Date(time).toISOString().slice(0, 10);
  return `/posts?from=${day(Math.min(now, ...dates))}&to=${day(Math.max(now, ...dates))}`;
}

const fixFirst = 'Nothing was sent: fix the problems shown beside the text, media, channels or date.';

/**
 * Sends the form: the organization's POST /posts budget first (one request per time zone, as
 * the API would be called), then POST /posts's own checks, then the same createPosts. An edit
 * opens the edited post's page; new posts open the posts list on their dates.
 */
async function send(ctx: DashboardRouterContext, deps: ComposerDeps, form: ComposerForm, loaded: Loaded) {
  const organizationId = signedIn(ctx).organization.id;
  const made = requestsOf(form, loaded, deps.now());
  const refuse = (report: ComposerReport | null, problem: string | undefined, status: number): void => {
    renderComposer(ctx, { form, ...loaded, report, problem }, status);
  };
  if (made.picker.length > 0 || made.schedule.length > 0 || made.media.length > 0) {
    // The composer's own refusals (no channel, a date that has passed) never reach POST /posts.
    refuse(await checkComposer(deps, organizationId, form, made, loaded.library), fixFirst, 400);
    return;
  }
  for (const _request of made.requests) {
    const decision = await deps.limiter.hit(`org:${organizationId}`);
    if (!decision.allowed) {
      const problem = `This organization has used its ${decision.limit} posts requests ${budgetWindow(decision)}; `
        + `try again in ${budgetReset(decision)}. Nothing was sent.`;
      refuse(null, problem, 429);
      return;
    }
  }
  const report = await checkComposer(deps, organizationId, form, made, loaded.library);
  if (!report.valid) {
    refuse(report, fixFirst, 400);
    return;
  }
  const created: string[] = [];
  for (const request of made.requests) {
    try {
      const posts = await createPosts(deps, organizationId, request.input);
      created.push(...posts.map((post) => post.postId));
    } catch (error) {
      // A refusal found only while creating (a queue slot taken meanwhile): shown with the form.
      if (!(error instanceof DomainError)) throw error;
      const sent = created.length === 0 ? 'Nothing was sent' : `${created.length} posts were created, the rest not`;
      refuse(report, `${sent}: ${sentence(error.message)}`, error.status);
      return;
    }
  }
  const [edited] = created;
  const editedPage = loaded.edited !== null && edited !== undefined ? `/posts/${edited}` : null;
  ctx.redirect(editedPage ?? await postsListPath(deps, created));
}

export function registerComposePages(router: Router<DashboardState>, deps: ComposerDeps): void {
  router.get('/compose', requireSignIn(), async (ctx) => {
    const query = parseForm(composerQuery, ctx.query);
    if (query.post !== undefined) {
      await openStoredPost(ctx, deps, query.post, query.copy === '1');
      return;
    }
    const loaded = await load(deps, signedIn(ctx).organization.id, emptyComposerForm);
    renderComposer(ctx, { form: emptyComposerForm, ...loaded, report: null });
  });

  // Without JavaScript every button posts here; htmx posts the part buttons here too and keeps the composer.
  router.post('/compose', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const posted = parseComposerForm(ctx.request.body);
    const loaded = await load(deps, organizationId, posted);
    if (loaded.edited !== null && !editablePost(loaded.edited)) {
      refuseEdit(ctx, posted, loaded, loaded.edited);
      return;
    }
    if (posted.intent === 'send') {
      await send(ctx, deps, posted, loaded);
      return;
    }
    const form = withPartsChanged(posted);
    const { report, paused } = await budgetedCheck(deps, organizationId, form, loaded);
    const focusPart = posted.intent === 'add-part' ? form.part.length - 1 : undefined;
    renderComposer(ctx, { form, ...loaded, report, paused, focusPart });
  });

  // htmx's live check: the per-channel column, and the problem lists beside the fields out of band.
  router.post('/compose/check', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const form = parseComposerForm(ctx.request.body);
    const loaded = await load(deps, organizationId, form, false);
    const { report, paused } = await budgetedCheck(deps, organizationId, form, loaded);
    ctx.type = 'text/html; charset=utf-8';
    const checks = composerChecks(report, previewParts(form, loaded.library));
    ctx.body = html`${checks}${fieldProblems(report, form.part.length, paused)}`.markup;
  });

  registerComposerUpload(router, deps);
}
