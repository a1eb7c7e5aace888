import type Router from '@koa/router';
import { approvedApps, revokeApp, type ApprovedApp } from '../../../shared/domain/oauth/grants.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { csrfField, renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

function approvedRow(ctx: DashboardRouterContext, app: ApprovedApp): SafeHtml {
  const picture = webUrl(app.pictureUrl);
  return html`<tr>
  <td>${picture === null ? '' : html`<img class="app-picture" src="${picture}" alt=""> `}<strong>${app.name}</strong>${app.description === null ? '' : html`<br><span class="muted">${app.description}</span>`}</td>
  <td>${app.organizationName}</td>
  <td><time datetime="${app.approvedAt.toISOString()}">${app.approvedAt.toISOString().slice(0, 10)}</time></td>
  <td><form method="post" action="/approved-apps/${app.appId}/revoke" class="inline">${csrfField(ctx)}<button type="submit" class="danger" aria-label="Revoke ${app.name}">Revoke</button></form></td>
</tr>`;
}

export function registerApprovedAppPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/approved-apps', requireSignIn(), async (ctx) => {
    const apps = await approvedApps(deps.db, signedIn(ctx).user._id);
    const notice = ctx.query.revoked === '1' ? html`<p class="notice" role="status">The app's access was revoked.</p>` : '';
    const body = apps.length === 0
      ? html`${notice}<p>You have not approved any app.</p>`
      : html`${notice}<p>These apps can use the public API for the organization shown, as you approved. Revoking ends the app's access for all your organizations at once.</p>
<div class="table-scroll" tabindex="0"><table><caption class="muted">Apps you approved</caption>
<thead><tr><th scope="col">App</th><th scope="col">Organization</th><th scope="col">Approved</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${apps.map((app) => approvedRow(ctx, app))}</tbody></table></div>`;
    renderPage(ctx, { title: 'Approved apps', body });
  });

  router.post('/approved-apps/:appId/revoke', requireSignIn(), async (ctx) => {
    await revokeApp(deps.db, deps.caches, signedIn(ctx).user._id, ctx.params.appId ?? '', deps.now());
    ctx.redirect('/approved-apps?revoked=1');
  });
}
