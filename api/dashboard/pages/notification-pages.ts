import type Router from '@koa/router';
import { listNotifications, notificationsPerPage, type NotificationView } from '../../../shared/domain/notifications/notifications.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

/** Pages are numbered from 1 here (people read the address bar); the domain counts from 0. */
function requestedPage(ctx: DashboardRouterContext): number {
  const value = ctx.query.page;
  if (value === undefined) return 1;
  if (typeof value !== 'string' || !/^[1-9]\d{0,6}$/.test(value)) {
    throw new DomainError('validation_failed', words(ctx)('notifications.badPage'));
  }
  return Number(value);
}

const shortTime = (iso: string): string => `${iso.replace('T', ' ').slice(0, 16)} UTC`;

function notificationItem(t: Translate, notification: NotificationView): SafeHtml {
  const link = webUrl(notification.link);
  const open = link === null ? '' : html` <a href="${link}">${t('notifications.open')}</a>`;
  const time = html`<time datetime="${notification.createdAt}">${shortTime(notification.createdAt)}</time>`;
  return html`<li>${time}: ${notification.content}${open}</li>`;
}

export function registerNotificationPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/notifications', requireSignIn(), async (ctx) => {
    const t = words(ctx);
    const page = requestedPage(ctx);
    const result = await listNotifications(deps.db, signedIn(ctx).organization.id, page - 1);
    const pages = Math.max(1, Math.ceil(result.total / notificationsPerPage));
    const list = result.notifications.length === 0
      ? html`<p>${t(page === 1 ? 'notifications.none' : 'notifications.pastLast')}</p>`
      : html`<ol class="notifications">${result.notifications.map((item) => notificationItem(t, item))}</ol>`;
    const links = [
      page > 1 ? html`<a href="/notifications?page=${page - 1}" rel="prev">${t('notifications.newer')}</a>` : null,
      result.hasMore
        ? html`<a href="/notifications?page=${page + 1}" rel="next">${t('notifications.older')}</a>`
        : null,
    ].filter((link) => link !== null);
    const summary = t.count('notifications.summary', result.total, { page, pages, perPage: notificationsPerPage });
    const pageLinks = html`<p>${links.map((link, index) => html`${index > 0 ? ' · ' : ''}${link}`)}</p>`;
    renderPage(ctx, {
      title: t('notifications.title'),
      body: html`<p class="muted">${summary}</p>
${list}
${links.length === 0 ? '' : html`<nav aria-label="${t('notifications.pages')}">${pageLinks}</nav>`}`,
    });
  });
}
