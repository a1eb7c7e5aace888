import type Router from '@koa/router';
import { findEachById } from '../../../shared/db/equality-queries.ts';
import { asObjectId } from '../../../shared/db/object-id.ts';
import { createPosts } from '../../../shared/domain/posts/create-posts.ts';
import { getPost, type PostWithThread } from '../../../shared/domain/posts/post-queries.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { ComposerDeps } from '../compose/composer-deps.ts';
import { html } from '../html.ts';
import { sentence } from '../html-errors.ts';
import { words, type PlainKey, type Translate } from '../i18n/translate.ts';
import type { MessageKey } from '../i18n/messages-en.ts';
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
  asDuplicate, asEdit, composerQuery, editablePost, notEditableReason, originOf, prefilledForm, withLibraryMedia,
  type ComposerOrigin,
} from '../compose/composer-origin.ts';
import { composerLibrary, olderLibraryPage, type ComposerMedia } from '../compose/composer-media.ts';
import { registerComposerLibrary } from '../compose/composer-library.ts';
import { withStoredPosters } from '../compose/composer-posters.ts';
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
  t: Translate,
): Promise<{ report: ComposerReport | null; paused: string | null }> {
  const decision = await deps.postValidationLimiter.hit(`org:${organizationId}`);
  if (!decision.allowed) {
    const paused = t('compose.checksPaused', {
      limit: decision.limit, window: budgetWindow(decision, t), reset: budgetReset(decision, t),
    });
    return { report: null, paused };
  }
  const made = requestsOf(form, loaded, deps.now(), t);
  const report = await checkComposer(deps, organizationId, form, made, loaded.library, t);
  return { report, paused: null };
}

/**
 * What every composer request reads: the channels to choose from and the library's files (with the
 * cursor of the next older page); while editing, the stored post (another organization's, or a
 * deleted one, is a 404) and its origin line; while duplicating, the source post.
 */
interface Loaded {
  groups: ChannelGroup[];
  library: ComposerMedia[];
  /** The cursor after the library's newest page: where a fresh composer's "show older files" starts. */
  next: string | null;
  edited: PostWithThread | null;
  source: PostWithThread | null;
  origin: ComposerOrigin | undefined;
}

/** The form's POST /posts bodies; while editing, as an edit of the stored post, while duplicating, as its copy. */
function requestsOf(form: ComposerForm, loaded: Loaded, now: Date, t: Translate): ComposerRequests {
  const made = composerRequests(form, loaded.groups, loaded.library, now, t);
  if (loaded.edited !== null) return asEdit(form, made, loaded.edited, t);
  return loaded.source === null ? made : asDuplicate(made, loaded.source);
}

/**
 * The post a duplicate is made from; null once it is deleted (or not this organization's): what
 * was typed is still sent, as a new post without the source's tags and delays.
 */
async function sourceOf(deps: ComposerDeps, organizationId: string, postId: string): Promise<PostWithThread | null> {
  try {
    return await getPost(deps.db, organizationId, postId);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'not_found') return null;
    throw error;
  }
}

/** `newest`: the library's newest files too, for a whole page; the live check needs only those attached. */
async function load(deps: ComposerDeps, organizationId: string, form: ComposerForm, newest = true): Promise<Loaded> {
  const attached = Object.entries(form.media).filter(([, use]) => newest || use.part !== '').map(([id]) => id);
  const [groups, library, edited, source] = await Promise.all([
    composerChannels(deps.db, organizationId),
    composerLibrary(deps.db, organizationId, attached, { newest }),
    form.post === undefined ? null : getPost(deps.db, organizationId, form.post),
    form.post !== undefined || form.copyOf === undefined ? null : sourceOf(deps, organizationId, form.copyOf),
  ]);
  const origin = edited !== null
    ? originOf(edited, 'edit')
    : source === null ? undefined : originOf(source, 'duplicate');
  return { groups, library: library.media, next: library.next, edited, source, origin };
}

/** The form with the place the library's next page starts, when there is one. */
function withMediaCursor(form: ComposerForm, next: string | null): ComposerForm {
  const { mediaBefore: _before, ...rest } = form;
  return next === null ? rest : { ...rest, mediaBefore: next };
}

/**
 * "Show older files" without JavaScript: the form comes back as typed, with the library's next
 * page added to the files shown and the cursor moved past it.
 */
async function withOlderFiles(
  deps: ComposerDeps, organizationId: string, form: ComposerForm, loaded: Loaded,
): Promise<{ form: ComposerForm; loaded: Loaded }> {
  if (form.intent !== 'more-media' || form.mediaBefore === undefined) return { form, loaded };
  const shown = new Set(loaded.library.map((media) => media.id));
  const page = await olderLibraryPage(deps.db, organizationId, form.mediaBefore, shown);
  return {
    form: withMediaCursor(form, page.next),
    loaded: { ...loaded, library: [...loaded.library, ...page.media] },
  };
}

const titles: Record<ComposerOrigin['mode'], PlainKey> = {
  edit: 'compose.titleEdit', duplicate: 'compose.titleDuplicate',
};

/** What composer-upload.js says beside each file it uploads. */
const uploadWords: readonly MessageKey[] = [
  'composer.uploadOf', 'composer.uploaded', 'composer.uploadedProcessing', 'composer.uploadFailed',
  'composer.fileProblem', 'composer.uploadInterrupted',
];

function renderComposer(ctx: DashboardRouterContext, view: ComposerView, status = 200): void {
  const t = words(ctx);
  const body = composerBody(ctx, view);
  const title = t(view.origin === undefined ? 'compose.title' : titles[view.origin.mode]);
  renderPage(ctx, { title, status, wide: true, scripts: ['composer-upload.js'], scriptWords: uploadWords, body });
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
  const t = words(ctx);
  const found = await getPost(deps.db, organizationId, postId);
  const editable = editablePost(found);
  const mode = copy || !editable ? 'duplicate' : 'edit';
  const note = copy || editable ? null : t('compose.cannotEditNote', { reason: notEditableReason(found, t) });
  const groups = await composerChannels(deps.db, organizationId);
  const filled = withStoredPosters(prefilledForm(found, mode, groups, deps.now()), found);
  const { media: library, next } = await composerLibrary(deps.db, organizationId, Object.keys(filled.media), {
    newest: true,
  });
  const { form, leftOut } = withLibraryMedia(withMediaCursor(filled, next), library);
  const notice = leftOut === 0 ? undefined : t.count('compose.filesLeftOut', leftOut);
  renderComposer(ctx, { form, groups, library, report: null, origin: originOf(found, mode, note), notice });
}

/**
 * A POST naming a post that was published (or failed) since the edit began: what was typed is kept
 * as a duplicate, so sending it again makes a new post. A send is refused with 409; the part
 * buttons (nothing sent) answer 200, so that htmx swaps the composer in.
 */
function refuseEdit(ctx: DashboardRouterContext, form: ComposerForm, loaded: Loaded, edited: PostWithThread): void {
  const t = words(ctx);
  // The edited post becomes the duplicate's source: sending it keeps the post's tags and delays.
  const { post: _edited, ...rest } = form;
  const duplicate = { ...rest, copyOf: edited.root._id.toHexString() };
  const sending = form.intent === 'send';
  const reason = notEditableReason(edited, t);
  const problem = sending
    ? t('compose.noLongerEditableUnchanged', { reason })
    : t('compose.noLongerEditableKept', { reason });
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

/**
 * Sends the form: the organization's POST /posts budget first (one request per time zone, as
 * the API would be called), then POST /posts's own checks, then the same createPosts. An edit
 * opens the edited post's page; new posts open the posts list on their dates.
 */
async function send(ctx: DashboardRouterContext, deps: ComposerDeps, form: ComposerForm, loaded: Loaded) {
  const organizationId = signedIn(ctx).organization.id;
  const t = words(ctx);
  const fixFirst = t('compose.fixFirst');
  const made = requestsOf(form, loaded, deps.now(), t);
  const refuse = (report: ComposerReport | null, problem: string | undefined, status: number): void => {
    renderComposer(ctx, { form, ...loaded, report, problem }, status);
  };
  if (made.picker.length > 0 || made.schedule.length > 0 || made.media.length > 0) {
    // The composer's own refusals (no channel, a date that has passed) never reach POST /posts.
    refuse(await checkComposer(deps, organizationId, form, made, loaded.library, t), fixFirst, 400);
    return;
  }
  for (const _request of made.requests) {
    const decision = await deps.limiter.hit(`org:${organizationId}`);
    if (!decision.allowed) {
      const problem = t('compose.postsBudgetSpent', {
        limit: decision.limit, window: budgetWindow(decision, t), reset: budgetReset(decision, t),
      });
      refuse(null, problem, 429);
      return;
    }
  }
  const report = await checkComposer(deps, organizationId, form, made, loaded.library, t);
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
      // The domain's reason stays as the API words it.
      const reason = sentence(error.message);
      const problem = created.length === 0
        ? t('compose.nothingSent', { reason })
        : t.count('compose.partlySent', created.length, { reason });
      refuse(report, problem, error.status);
      return;
    }
  }
  const [edited] = created;
  const editedPage = loaded.edited !== null && edited !== undefined ? `/posts/${edited}` : null;
  ctx.redirect(editedPage ?? await postsListPath(deps, created));
}

export function registerComposePages(router: Router<DashboardState>, deps: ComposerDeps): void {
  router.get('/compose', requireSignIn(), async (ctx) => {
    const query = parseForm(composerQuery(words(ctx)), ctx.query);
    if (query.post !== undefined) {
      await openStoredPost(ctx, deps, query.post, query.copy === '1');
      return;
    }
    const loaded = await load(deps, signedIn(ctx).organization.id, emptyComposerForm);
    renderComposer(ctx, { form: withMediaCursor(emptyComposerForm, loaded.next), ...loaded, report: null });
  });

  // Without JavaScript every button posts here; htmx posts the part buttons here too and keeps the composer.
  router.post('/compose', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const t = words(ctx);
    const posted = parseComposerForm(ctx.request.body, t);
    const read = await load(deps, organizationId, posted);
    if (read.edited !== null && !editablePost(read.edited)) {
      refuseEdit(ctx, posted, read, read.edited);
      return;
    }
    if (posted.intent === 'send') {
      await send(ctx, deps, posted, read);
      return;
    }
    const shown = await withOlderFiles(deps, organizationId, posted, read);
    const { loaded } = shown;
    const form = withPartsChanged(shown.form);
    const { report, paused } = await budgetedCheck(deps, organizationId, form, loaded, t);
    const focusPart = posted.intent === 'add-part' ? form.part.length - 1 : undefined;
    renderComposer(ctx, { form, ...loaded, report, paused, focusPart });
  });

  // htmx's live check: the per-channel column, and the problem lists beside the fields out of band.
  router.post('/compose/check', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const t = words(ctx);
    const form = parseComposerForm(ctx.request.body, t);
    const loaded = await load(deps, organizationId, form, false);
    const { report, paused } = await budgetedCheck(deps, organizationId, form, loaded, t);
    ctx.type = 'text/html; charset=utf-8';
    const checks = composerChecks(report, previewParts(form, loaded.library), t);
    ctx.body = html`${checks}${fieldProblems(report, form.part.length, paused, t)}`.markup;
  });

  registerComposerUpload(router, deps);
  registerComposerLibrary(router, deps);
}
