import type Router from '@koa/router';
import { approvedApps, revokeApp, type ApprovedApp } from '../../../shared/domain/oauth/grants.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { words } from '../i18n/translate.ts';
import { csrfField, renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

function approvedRow(ctx: DashboardRouterContext, app: ApprovedApp): SafeHtml {
  const t = words(ctx);
  const picture = webUrl(app.pictureUrl);
  const label = t('approvedApps.revokeApp', { app: app.name });
  const revoke = html`<button type="submit" class="danger" aria-label="${label}">${t('approvedApps.revoke')}</button>`;
  const action = `/approved-apps/${app.appId}/revoke`;
  return html`<tr>
  <td>${picture === null ? '' : html`<img class="app-picture" src="${picture}" alt=""> `}<strong>${app.name}</strong>${app.description === null ? '' : html`<br><span class="muted">${app.description}</span>`}</td>
  <td>${app.organizationName}</td>
  <td><time datetime="${app.approvedAt.toISOString()}">${app.approvedAt.toISOString().slice(0, 10)}</time></td>
  <td><form method="post" action="${action}" class="inline">${csrfField(ctx)}${revoke}</form></td>
</tr>`;
}

export function registerApprovedAppPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/approved-apps', requireSignIn(), async (ctx) => {
    const t = words(ctx);
    const apps = await approvedApps(deps.db, signedIn(ctx).user._id);
    const notice = ctx.query.revoked === '1'
      ? html`<p class="notice" role="status">${t('approvedApps.revoked')}</p>`
      : '';
    const headings = html`<th scope="col">${t('approvedApps.app')}</th>
<th scope="col">${t('approvedApps.organization')}</th><th scope="col">${t('approvedApps.approved')}</th>
<th scope="col"><span class="muted">${t('approvedApps.action')}</span></th>`;
    const body = apps.length === 0
      ? html`${notice}<p>${t('approvedApps.none')}</p>`
      : html`${notice}<p>${t('approvedApps.intro')}</p>
<div class="table-scroll" tabindex="0"><table><caption class="muted">${t('approvedApps.caption')}</caption>
<thead><tr>${headings}</tr></thead>
<tbody>${apps.map((app) => approvedRow(ctx, app))}</tbody></table></div>`;
    renderPage(ctx, { title: t('approvedApps.title'), body });
  });

  router.post('/approved-apps/:appId/revoke', requireSignIn(), async (ctx) => {
    await revokeApp(deps.db, deps.caches, signedIn(ctx).user._id, ctx.params.appId ?? '', deps.now());
    ctx.redirect('/approved-apps?revoked=1');
  });
}
