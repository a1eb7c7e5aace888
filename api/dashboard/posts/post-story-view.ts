import type { presentPost } from '../../public/posts/present.ts';
import type { AnalyticsSeries } from '../../../shared/domain/analytics/analytics-series.ts';
import type { PostState } from '../../../shared/db/models/post.ts';
import type { PartRemovalState } from '../../../shared/domain/removal/removal-states.ts';
import type { PlatformRemoval, RemovalMethod } from '../../../shared/platforms/kit/platform-removal.ts';
import { analyticsChart } from '../analytics-chart.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { labelOf, type PlainKey, type Translate } from '../i18n/translate.ts';
import { csrfField } from '../layout.ts';
import type { DashboardState } from '../state.ts';

/** The post as GET /posts/:id answers it: the page shows what the API shows, from the same presenter. */
export type PostDetail = ReturnType<typeof presentPost>;
type PartDetail = PostDetail['value'][number];
type Removal = NonNullable<PostDetail['removal']>;

/** An instant as the dashboard writes them everywhere (the posts list too): UTC, to the minute. */
export function utcText(iso: string): SafeHtml {
  // The zone's name reads the same in every language, so the time needs no translator.
  const zone = 'UTC';
  return html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 16)} ${zone}</time>`;
}

/** A post's stored state as a reader names it (the wire values stay in the API and the forms). */
export const postStateLabels: Record<PostState, PlainKey> = {
  DRAFT: 'post.stateDraft',
  QUEUE: 'post.stateQueue',
  PUBLISHED: 'post.statePublished',
  ERROR: 'post.stateError',
};

/** A state as its label; a value this dashboard does not know yet is shown as stored. */
export function postStateText(t: Translate, state: string): string {
  return labelOf(t, postStateLabels, state);
}

const removalStateLabels: Record<PartRemovalState, PlainKey> = {
  queued: 'post.removalQueued',
  removing: 'post.removalRemoving',
  removed: 'post.removalRemoved',
  failed: 'post.removalFailed',
  not_published: 'post.removalNotPublished',
  unconfirmed: 'post.removalUnconfirmed',
  unsupported: 'post.removalUnsupported',
};

function removalStateText(t: Translate, state: string): string {
  return labelOf(t, removalStateLabels, state);
}

const removalMethodLabels: Record<RemovalMethod, PlainKey> = {
  delete: 'post.methodDelete',
  unpublish: 'post.methodUnpublish',
  trash: 'post.methodTrash',
};

function removalMethodText(t: Translate, method: string): string {
  return labelOf(t, removalMethodLabels, method);
}

/** What the page can offer besides the story: each action only where the domain would accept it. */
export interface PostActions {
  /** A failed part the platform never accepted, and nothing queued: POST /posts/:id/retry would run. */
  canRetry: boolean;
  /** Still waiting in the queue: it may move to another time. */
  canMove: boolean;
  /** A draft or scheduled post nothing of which is on the platform: the composer can edit it. */
  canEdit: boolean;
  /** What the channel's platform says about taking published items off it. */
  removal: PlatformRemoval;
  /** Some part is on the platform (has a release id): "also delete on the platform" means something. */
  onPlatform: boolean;
  /** Analytics of the post, once the workers gathered some. */
  analytics: AnalyticsSeries[];
}

/** Everything the story's parts are written with: the form's token and the reader's words. */
interface StoryContext {
  ctx: { state: DashboardState };
  t: Translate;
}

const partName = (t: Translate, position: number): string =>
  (position === 0 ? t('post.partPost') : t('post.partReply', { number: position }));

function attemptList(t: Translate, part: PartDetail): SafeHtml {
  if (part.attempts.length === 0) return html`<span class="muted">${t('post.attemptsNone')}</span>`;
  return html`<ol class="attempts">${part.attempts.map((attempt) => html`<li>${utcText(attempt.at)}:
  <strong>${attempt.category}</strong>${attempt.httpStatus === null
    ? ''
    : html` ${t('post.attemptHttp', { status: attempt.httpStatus })}`}
  <span class="muted">${attempt.message}</span></li>`)}</ol>`;
}

function partRow(t: Translate, part: PartDetail, index: number): SafeHtml {
  const release = webUrl(part.releaseURL);
  const why = part.error === null
    ? ''
    : html`<br><span class="error-text">${part.errorCategory ?? t('post.errorCategoryUnknown')}: ${part.error}</span>`;
  const published = part.publishedAt === null
    ? ''
    : html`<br>${t.markup('post.publishedAt', { time: utcText(part.publishedAt) })}`;
  return html`<tr>
  <th scope="row">${partName(t, index)}</th>
  <td class="part-content">${part.content}</td>
  <td>${postStateText(t, part.state)}${why}${published}</td>
  <td>${release === null
    ? html`<span class="muted">${t('post.releaseNone')}</span>`
    : html`<a href="${release}">${t('post.viewOnPlatform')}</a>`}</td>
  <td>${attemptList(t, part)}</td>
</tr>`;
}

function removalStates(t: Translate, removal: Removal): SafeHtml {
  const rows = removal.parts.map((part) => html`<tr>
  <th scope="row">${partName(t, part.position)}</th>
  <td>${removalStateText(t, part.state)}${
  part.method === null ? '' : html` <span class="muted">(${removalMethodText(t, part.method)})</span>`}</td>
  <td>${part.reason ?? ''}${part.category === null ? '' : html` ${part.category}`}${
  part.message === null ? '' : html`: ${part.message}`}</td>
  <td>${utcText(part.at)}</td>
</tr>`);
  return html`<section aria-labelledby="removal-heading"><h2 id="removal-heading">${t('post.removalHeading')}</h2>
<p>${removal.done ? t('post.removalDone') : t('post.removalRunning')}</p>
<div class="table-scroll"><table><thead><tr><th scope="col">${t('post.columnPart')}</th>
<th scope="col">${t('post.columnState')}</th><th scope="col">${t('post.columnWhy')}</th>
<th scope="col">${t('post.columnSince')}</th></tr></thead>
<tbody>${rows}</tbody></table></div></section>`;
}

function analyticsSection(t: Translate, series: AnalyticsSeries[]): SafeHtml {
  if (series.length === 0) return html``;
  return html`<section aria-labelledby="analytics-heading"><h2 id="analytics-heading">${t('post.analyticsHeading')}</h2>
<div class="charts">${series.map(analyticsChart)}</div></section>`;
}

function deleteForm({ ctx, t }: StoryContext, post: PostDetail, actions: PostActions): SafeHtml {
  const removal = actions.removal;
  const choice = !actions.onPlatform
    ? html`<p class="muted">${t('post.deleteInSpsOnly')}</p>`
    : removal.supported
      ? html`<p><label class="check"><input type="checkbox" name="on_platform" value="yes">
  ${t('post.deleteOnPlatform', { method: removalMethodText(t, removal.method) })}</label></p>`
      : html`<p class="muted">${t('post.staysOnPlatform', { reason: removal.reason })}</p>`;
  return html`<form method="post" action="/posts/${post.id}/delete" class="action">${csrfField(ctx)}
  <h3>${t('post.deleteHeading')}</h3>${choice}
  <button type="submit" class="danger">${t('post.deleteButton')}</button></form>`;
}

function moveForm({ ctx, t }: StoryContext, post: PostDetail): SafeHtml {
  return html`<form method="post" action="/posts/${post.id}/move" class="action">${csrfField(ctx)}
  <h3>${t('post.moveHeading')}</h3>
  <label for="publish-at">${t('post.moveLabel')}</label>
  <input id="publish-at" name="publish_at" type="datetime-local" required value="${post.publishDate.slice(0, 16)}">
  <p><button type="submit">${t('post.moveButton')}</button></p></form>`;
}

/** Links to the composer: edit (a draft or a scheduled post) and duplicate (any post) as a new post. */
function composeLinks(t: Translate, post: PostDetail, actions: PostActions): SafeHtml {
  const edit = actions.canEdit ? html`<a class="button" href="/compose?post=${post.id}">${t('post.edit')}</a> ` : '';
  const why = actions.canEdit ? t('post.editHint') : t('post.duplicateHint');
  return html`<div class="action">
  <h3>${actions.canEdit ? t('post.editOrDuplicate') : t('post.duplicate')}</h3><p>${why}</p>
  <p>${edit}<a class="button" href="/compose?post=${post.id}&amp;copy=1">${t('post.duplicate')}</a></p></div>`;
}

function actionsSection(story: StoryContext, post: PostDetail, actions: PostActions): SafeHtml {
  if (post.deletedAt !== null) return html``;
  const { ctx, t } = story;
  const retry = actions.canRetry
    ? html`<form method="post" action="/posts/${post.id}/retry" class="action">${csrfField(ctx)}
  <h3>${t('post.retryHeading')}</h3><p>${t('post.retryHint')}</p>
  <button type="submit" class="primary">${t('post.retryButton')}</button></form>`
    : '';
  return html`<section aria-labelledby="actions-heading"><h2 id="actions-heading">${t('post.actionsHeading')}</h2>
<div class="actions">${composeLinks(t, post, actions)}${retry}${actions.canMove ? moveForm(story, post) : ''}${
  deleteForm(story, post, actions)}</div>
</section>`;
}

/** The post's story: per part its state, link and attempts; its removal once deleted on the platform. */
export function postStory(
  ctx: { state: DashboardState }, t: Translate, post: PostDetail, actions: PostActions,
): SafeHtml {
  const deleted = post.deletedAt === null
    ? ''
    : html`<p class="notice">${t.markup('post.deletedAt', { time: utcText(post.deletedAt) })}</p>`;
  const failed = post.error === null
    ? ''
    : html`<p class="error" role="alert">${
      t('post.failed', { category: post.errorCategory ?? t('post.errorCategoryUnknown'), error: post.error })}</p>`;
  return html`${deleted}${failed}
<dl class="facts">
  <dt>${t('post.factChannel')}</dt><dd>${post.integration.name} <span class="muted">${
  post.integration.providerIdentifier}</span></dd>
  <dt>${t('post.columnState')}</dt><dd>${postStateText(t, post.state)}</dd>
  <dt>${t('post.factPublishDate')}</dt><dd>${utcText(post.publishDate)}</dd>
</dl>
<section aria-labelledby="parts-heading"><h2 id="parts-heading">${t('post.partsHeading')}</h2>
<div class="table-scroll"><table><thead><tr><th scope="col">${t('post.columnPart')}</th>
<th scope="col">${t('post.columnContent')}</th>
<th scope="col">${t('post.columnState')}</th>
<th scope="col">${t('post.columnRelease')}</th><th scope="col">${t('post.columnAttempts')}</th></tr></thead>
<tbody>${post.value.map((part, index) => partRow(t, part, index))}</tbody></table></div></section>
${post.removal === null ? '' : removalStates(t, post.removal)}
${analyticsSection(t, actions.analytics)}
${actionsSection({ ctx, t }, post, actions)}
<p><a href="/calendar">${t('post.backToCalendar')}</a> · <a href="/posts">${t('post.allPosts')}</a></p>`;
}
