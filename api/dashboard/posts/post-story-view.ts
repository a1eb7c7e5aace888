import type { presentPost } from '../../public/posts/present.ts';
import type { AnalyticsSeries } from '../../../shared/domain/analytics/analytics-series.ts';
import type { PlatformRemoval } from '../../../shared/platforms/kit/platform-removal.ts';
import { analyticsChart } from '../analytics-chart.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { csrfField } from '../layout.ts';
import type { DashboardState } from '../state.ts';

/** The post as GET /posts/:id answers it: the page shows what the API shows, from the same presenter. */
export type PostDetail = ReturnType<typeof presentPost>;
type PartDetail = PostDetail['value'][number];
type Removal = NonNullable<PostDetail['removal']>;

/** An instant as the dashboard writes them everywhere (the posts list too): UTC, to the minute. */
export function utcText(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 16)} UTC</time>`;
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

function attemptList(part: PartDetail): SafeHtml {
  if (part.attempts.length === 0) return html`<span class="muted">none yet</span>`;
  return html`<ol class="attempts">${part.attempts.map((attempt) => html`<li>${utcText(attempt.at)}:
  <strong>${attempt.category}</strong>${attempt.httpStatus === null ? '' : html` (HTTP ${attempt.httpStatus})`}
  <span class="muted">${attempt.message}</span></li>`)}</ol>`;
}

function partRow(part: PartDetail, index: number): SafeHtml {
  const release = webUrl(part.releaseURL);
  const why = part.error === null
    ? ''
    : html`<br><span class="error-text">${part.errorCategory ?? 'error'}: ${part.error}</span>`;
  return html`<tr>
  <th scope="row">${index === 0 ? 'Post' : `Reply ${index}`}</th>
  <td class="part-content">${part.content}</td>
  <td>${part.state}${why}${part.publishedAt === null ? '' : html`<br>published ${utcText(part.publishedAt)}`}</td>
  <td>${release === null
    ? html`<span class="muted">none</span>`
    : html`<a href="${release}">View on the platform</a>`}</td>
  <td>${attemptList(part)}</td>
</tr>`;
}

function removalStates(removal: Removal): SafeHtml {
  const rows = removal.parts.map((part) => html`<tr>
  <th scope="row">${part.position === 0 ? 'Post' : `Reply ${part.position}`}</th>
  <td>${part.state}${part.method === null ? '' : html` <span class="muted">(${part.method})</span>`}</td>
  <td>${part.reason ?? ''}${part.category === null ? '' : html` ${part.category}`}${
  part.message === null ? '' : html`: ${part.message}`}</td>
  <td>${utcText(part.at)}</td>
</tr>`);
  return html`<section aria-labelledby="removal-heading"><h2 id="removal-heading">Removal from the platform</h2>
<p>${removal.done ? 'Every part is settled.' : 'Removal is still running: reload the page to follow it.'}</p>
<div class="table-scroll"><table><thead><tr><th scope="col">Part</th><th scope="col">State</th><th scope="col">Why</th>
<th scope="col">Since</th></tr></thead>
<tbody>${rows}</tbody></table></div></section>`;
}

function analyticsSection(series: AnalyticsSeries[]): SafeHtml {
  if (series.length === 0) return html``;
  return html`<section aria-labelledby="analytics-heading"><h2 id="analytics-heading">Analytics, last 7 days</h2>
<div class="charts">${series.map(analyticsChart)}</div></section>`;
}

function deleteForm(ctx: { state: DashboardState }, post: PostDetail, actions: PostActions): SafeHtml {
  const removal = actions.removal;
  const choice = !actions.onPlatform
    ? html`<p class="muted">Nothing of this post is on the platform, so it is deleted in SPS only.</p>`
    : removal.supported
      ? html`<p><label class="check"><input type="checkbox" name="on_platform" value="yes">
  Also delete it on the platform (${removal.method})</label></p>`
      : html`<p class="muted">It stays on the platform: ${removal.reason}.</p>`;
  return html`<form method="post" action="/posts/${post.id}/delete" class="action">${csrfField(ctx)}
  <h3>Delete</h3>${choice}
  <button type="submit" class="danger">Delete this post</button></form>`;
}

function moveForm(ctx: { state: DashboardState }, post: PostDetail): SafeHtml {
  return html`<form method="post" action="/posts/${post.id}/move" class="action">${csrfField(ctx)}
  <h3>Move</h3>
  <label for="publish-at">New publish date and time (UTC)</label>
  <input id="publish-at" name="publish_at" type="datetime-local" required value="${post.publishDate.slice(0, 16)}">
  <p><button type="submit">Move</button></p></form>`;
}

/** Links to the composer: edit (a draft or a scheduled post) and duplicate (any post) as a new post. */
function composeLinks(post: PostDetail, actions: PostActions): SafeHtml {
  const edit = actions.canEdit ? html`<a class="button" href="/compose?post=${post.id}">Edit</a> ` : '';
  const why = actions.canEdit
    ? 'Edit opens this post in the composer: its text, media, settings and date; sending there changes it.'
    : 'This post can no longer be edited. Duplicate opens the composer with its content as a new post.';
  return html`<div class="action">
  <h3>${actions.canEdit ? 'Edit or duplicate' : 'Duplicate'}</h3><p>${why}</p>
  <p>${edit}<a class="button" href="/compose?post=${post.id}&amp;copy=1">Duplicate</a></p></div>`;
}

function actionsSection(ctx: { state: DashboardState }, post: PostDetail, actions: PostActions): SafeHtml {
  if (post.deletedAt !== null) return html``;
  const retry = actions.canRetry
    ? html`<form method="post" action="/posts/${post.id}/retry" class="action">${csrfField(ctx)}
  <h3>Retry</h3><p>Publishes again only the parts the platform did not accept.</p>
  <button type="submit" class="primary">Retry the failed parts</button></form>`
    : '';
  return html`<section aria-labelledby="actions-heading"><h2 id="actions-heading">Actions</h2>
<div class="actions">${composeLinks(post, actions)}${retry}${actions.canMove ? moveForm(ctx, post) : ''}${
  deleteForm(ctx, post, actions)}</div>
</section>`;
}

/** The post's story: per part its state, link and attempts; its removal once deleted on the platform. */
export function postStory(ctx: { state: DashboardState }, post: PostDetail, actions: PostActions): SafeHtml {
  const deleted = post.deletedAt === null ? '' : html`<p class="notice">Deleted ${utcText(post.deletedAt)}.</p>`;
  const failed = post.error === null
    ? ''
    : html`<p class="error" role="alert">Failed (${post.errorCategory ?? 'error'}): ${post.error}</p>`;
  return html`${deleted}${failed}
<dl class="facts">
  <dt>Channel</dt><dd>${post.integration.name} <span class="muted">${post.integration.providerIdentifier}</span></dd>
  <dt>State</dt><dd>${post.state}</dd>
  <dt>Publish date</dt><dd>${utcText(post.publishDate)}</dd>
</dl>
<section aria-labelledby="parts-heading"><h2 id="parts-heading">Parts</h2>
<div class="table-scroll"><table><thead><tr><th scope="col">Part</th><th scope="col">Content</th>
<th scope="col">State</th>
<th scope="col">Release</th><th scope="col">Attempts</th></tr></thead>
<tbody>${post.value.map(partRow)}</tbody></table></div></section>
${post.removal === null ? '' : removalStates(post.removal)}
${analyticsSection(actions.analytics)}
${actionsSection(ctx, post, actions)}
<p><a href="/calendar">Back to the calendar</a> · <a href="/posts">All posts</a></p>`;
}
