import type Router from '@koa/router';
import { listPosts, type ListedChannel, type StoredPost } from '../../../shared/domain/posts/post-queries.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { renderPage } from '../layout.ts';
import { postStateText, utcText } from '../posts/post-story-view.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

const dayPattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `YYYY-MM-DD` query value as the start of that UTC day; the default when absent. */
function dayParameter(ctx: DashboardRouterContext, t: Translate, name: 'from' | 'to', fallback: Date): Date {
  const value = ctx.query[name];
  if (value === undefined || value === '') return fallback;
  const match = typeof value === 'string' ? dayPattern.exec(value) : null;
  const day = match === null ? null : new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (day === null || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) {
    throw new DomainError('validation_failed', t('posts.badDay', { name }));
  }
  return day;
}

const dayText = (date: Date): string => date.toISOString().slice(0, 10);

function postRow(t: Translate, post: StoredPost, channel: ListedChannel | undefined): SafeHtml {
  const release = webUrl(post.releaseURL);
  const content = post.content.length > 140 ? `${post.content.slice(0, 139)}…` : post.content;
  const error = (post.error ?? null) === null ? '' : html`<br><span class="muted">${post.error}</span>`;
  return html`<tr>
  <td>${utcText(post.publishDate.toISOString())}</td>
  <td>${channel?.name ?? ''}</td>
  <td>${postStateText(t, post.state)}${error}</td>
  <td><a href="/posts/${post._id.toString()}">${content === '' ? t('posts.noText') : content}</a>${
    release === null ? '' : html` <a href="${release}">${t('posts.view')}</a>`}</td>
</tr>`;
}

export function registerPostPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/posts', requireSignIn(), async (ctx) => {
    const now = deps.now();
    const t = words(ctx);
    const from = dayParameter(ctx, t, 'from', new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)));
    const to = dayParameter(ctx, t, 'to', new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)));
    // The range covers the whole of its last day.
    const range = { startDate: from, endDate: new Date(to.getTime() + 86_400_000 - 1) };
    const { posts, channels } = await listPosts(deps.db, signedIn(ctx).organization.id, range);
    const table = posts.length === 0
      ? html`<p>${t('posts.none')}</p>`
      : html`<div class="table-scroll" tabindex="0">
<table><caption class="muted">${t.count('posts.caption', posts.length)}</caption>
<thead><tr><th scope="col">${t('post.factPublishDate')}</th><th scope="col">${t('post.factChannel')}</th>
<th scope="col">${t('post.columnState')}</th><th scope="col">${t('post.columnContent')}</th></tr></thead>
<tbody>${posts.map((post) => postRow(t, post, channels.get(post.channelId.toString())))}</tbody>
</table></div>`;
    renderPage(ctx, {
      title: t('posts.title'),
      body: html`<form method="get" action="/posts">
  <label for="from">${t('posts.from')}</label><input id="from" name="from" type="date" value="${dayText(from)}">
  <label for="to">${t('posts.to')}</label><input id="to" name="to" type="date" value="${dayText(to)}">
  <p><button type="submit">${t('posts.show')}</button></p>
</form>
${table}`,
    });
  });
}
