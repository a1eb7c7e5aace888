import type Router from '@koa/router';
import { listPosts, type ListedChannel, type StoredPost } from '../../../shared/domain/posts/post-queries.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

const dayPattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `YYYY-MM-DD` query value as the start of that UTC day; the default when absent. */
function dayParameter(ctx: DashboardRouterContext, name: 'from' | 'to', fallback: Date): Date {
  const value = ctx.query[name];
  if (value === undefined || value === '') return fallback;
  const match = typeof value === 'string' ? dayPattern.exec(value) : null;
  const day = match === null ? null : new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (day === null || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) {
    throw new DomainError('validation_failed', `"${name}" must be a date written as YYYY-MM-DD`);
  }
  return day;
}

const dayText = (date: Date): string => date.toISOString().slice(0, 10);

function postRow(post: StoredPost, channel: ListedChannel | undefined): SafeHtml {
  const release = webUrl(post.releaseURL);
  const content = post.content.length > 140 ? `${post.content.slice(0, 139)}…` : post.content;
  return html`<tr>
  <td><time datetime="${post.publishDate.toISOString()}">${post.publishDate.toISOString().replace('T', ' ').slice(0, 16)} UTC</time></td>
  <td>${channel?.name ?? ''}</td>
  <td>${post.state}${post.error === null || post.error === undefined ? '' : html`<br><span class="muted">${post.error}</span>`}</td>
  <td><a href="/posts/${post._id.toString()}">${content === '' ? '(no text)' : content}</a>${
    release === null ? '' : html` <a href="${release}">View</a>`}</td>
</tr>`;
}

export function registerPostPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/posts', requireSignIn(), async (ctx) => {
    const now = deps.now();
    const from = dayParameter(ctx, 'from', new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)));
    const to = dayParameter(ctx, 'to', new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)));
    // The range covers the whole of its last day.
    const { posts, channels } = await listPosts(deps.db, signedIn(ctx).organization.id, { startDate: from, endDate: new Date(to.getTime() + 86_400_000 - 1) });
    const table = posts.length === 0
      ? html`<p>No posts between these dates.</p>`
      : html`<div class="table-scroll" tabindex="0">
<table><caption class="muted">${posts.length} posts, earliest first</caption>
<thead><tr><th scope="col">Publish date</th><th scope="col">Channel</th><th scope="col">State</th><th scope="col">Content</th></tr></thead>
<tbody>${posts.map((post) => postRow(post, channels.get(post.channelId.toString())))}</tbody>
</table></div>`;
    renderPage(ctx, {
      title: 'Posts',
      body: html`<form method="get" action="/posts">
  <label for="from">From</label><input id="from" name="from" type="date" value="${dayText(from)}">
  <label for="to">To</label><input id="to" name="to" type="date" value="${dayText(to)}">
  <p><button type="submit">Show posts</button></p>
</form>
${table}`,
    });
  });
}
