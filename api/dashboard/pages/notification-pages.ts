import type Router from '@koa/router';
import { listNotifications, notificationsPerPage, type NotificationView } from '../../../shared/domain/notifications/notifications.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

/** Pages are numbered from 1 here (people read the address bar); the domain counts from 0. */
function requestedPage(ctx: DashboardRouterContext): number {
  const value = ctx.query.page;
  if (value === undefined) return 1;
  if (typeof value !== 'string' || !/^[1-9]\d{0,6}$/.test(value)) throw new DomainError('validation_failed', 'the page number must be a whole number from 1');
  return Number(value);
}

function notificationItem(notification: NotificationView): SafeHtml {
  const link = webUrl(notification.link);
  return html`<li><time datetime="${notification.createdAt}">${notification.createdAt.replace('T', ' ').slice(0, 16)} UTC</time>: ${notification.content}${link === null ? '' : html` <a href="${link}">Open</a>`}</li>`;
}

export function registerNotificationPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/notifications', requireSignIn(), async (ctx) => {
    const page = requestedPage(ctx);
    const result = await listNotifications(deps.db, signedIn(ctx).organization.id, page - 1);
    const pages = Math.max(1, Math.ceil(result.total / notificationsPerPage));
    const list = result.notifications.length === 0
      ? html`<p>${page === 1 ? 'No notifications yet.' : 'This page is past the last notification.'}</p>`
      : html`<ol class="notifications">${result.notifications.map(notificationItem)}</ol>`;
    const links = [
      page > 1 ? html`<a href="/notifications?page=${page - 1}" rel="prev">Newer notifications</a>` : null,
      result.hasMore ? html`<a href="/notifications?page=${page + 1}" rel="next">Older notifications</a>` : null,
    ].filter((link) => link !== null);
    renderPage(ctx, {
      title: 'Notifications',
      body: html`<p class="muted">Page ${page} of ${pages}; ${result.total} notifications, newest first, ${notificationsPerPage} a page.</p>
${list}
${links.length === 0 ? '' : html`<nav aria-label="Notification pages"><p>${links.map((link, index) => html`${index > 0 ? ' · ' : ''}${link}`)}</p></nav>`}`,
    });
  });
}
