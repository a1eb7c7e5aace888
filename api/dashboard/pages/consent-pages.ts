import type Router from '@koa/router';
import { isMember } from '../../../shared/domain/accounts/accounts.ts';
import { approve, authorizationRequest } from '../../../shared/domain/oauth/authorization.ts';
import type { StoredApp } from '../../../shared/domain/oauth/oauth-apps.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { formField } from '../form-body.ts';
import { html, webUrl } from '../html.ts';
import { csrfField, renderPage, renderProblem } from '../layout.ts';
import { loginPath, safeReturnPath } from '../return-target.ts';
import type { DashboardRouterContext, DashboardState, SignedIn } from '../state.ts';

/** The parameters of an authorization request, from the query (GET) or the consent form (POST). */
interface AuthorizationParameters {
  clientId: string;
  responseType: string;
  /** Absent (null) means nothing is echoed back, as the spec allows. */
  state: string | null;
}

function queryValue(ctx: DashboardRouterContext, name: string): string {
  const value = ctx.query[name];
  return typeof value === 'string' ? value : '';
}

function fromQuery(ctx: DashboardRouterContext): AuthorizationParameters {
  const state = queryValue(ctx, 'state');
  return { clientId: queryValue(ctx, 'client_id'), responseType: queryValue(ctx, 'response_type'), state: state === '' ? null : state };
}

function fromForm(ctx: DashboardRouterContext): AuthorizationParameters {
  const state = formField(ctx, 'state', { trim: false });
  return { clientId: formField(ctx, 'client_id'), responseType: formField(ctx, 'response_type'), state: state === '' ? null : state };
}

/** The consent page's own address for these parameters, to come back to after logging in. */
function consentPath(parameters: AuthorizationParameters): string {
  const query = new URLSearchParams({ client_id: parameters.clientId, response_type: parameters.responseType });
  if (parameters.state !== null) query.set('state', parameters.state);
  return `/oauth/authorize?${query.toString()}`;
}

/** The app's redirect URL with our answer added to whatever query it already has. */
function redirectWith(app: StoredApp, answer: Record<string, string | null>): string {
  const target = new URL(app.redirectUrl);
  for (const [name, value] of Object.entries(answer)) if (value !== null) target.searchParams.set(name, value);
  return target.toString();
}

/** An invalid request is answered here and never redirected: the redirect URL is not trusted yet. */
async function requestedApp(ctx: DashboardRouterContext, deps: DashboardDeps, parameters: AuthorizationParameters): Promise<StoredApp | null> {
  const app = await authorizationRequest(deps.db, { clientId: parameters.clientId, responseType: parameters.responseType });
  if (app === null) {
    renderProblem(ctx, 400, 'Invalid authorization request', parameters.responseType === 'code'
      ? 'The app that sent you here is not registered with SPS (its client_id is unknown). Nothing was shared; you can close this page.'
      : 'The app that sent you here asked for something SPS does not offer (response_type must be "code"). Nothing was shared; you can close this page.');
  }
  return app;
}

function consentPage(ctx: DashboardRouterContext, app: StoredApp, account: SignedIn, parameters: AuthorizationParameters, problem?: string): void {
  const picture = webUrl(app.pictureUrl);
  const options = account.organizations.map((organization) => html`<option value="${organization.id}"${organization.id === account.organization.id ? html` selected` : ''}>${organization.name}</option>`);
  renderPage(ctx, {
    status: problem === undefined ? 200 : 400,
    title: `Authorize ${app.name}`,
    body: html`${problem === undefined ? '' : html`<p class="error" role="alert">${problem}</p>`}
<section aria-labelledby="app-heading" class="consent-app">
${picture === null ? '' : html`<img class="app-picture" src="${picture}" alt="${app.name} logo">`}
<div><h2 id="app-heading">${app.name}</h2>
${app.description === null || app.description === undefined ? '' : html`<p>${app.description}</p>`}</div>
</section>
<section aria-labelledby="permissions-heading">
<h2 id="permissions-heading">${app.name} wants to use SPS for you</h2>
<p>If you authorize it, it can use the SPS public API for the organization you choose, exactly as that organization's API key can:</p>
<ul>
  <li>list the organization's channels;</li>
  <li>create, schedule and delete posts;</li>
  <li>upload media;</li>
  <li>read notifications.</li>
</ul>
<p>The access does not expire. You can end it at any time on the <a href="/approved-apps">Approved apps</a> page.</p>
<p class="muted">You will then be sent back to <code>${new URL(app.redirectUrl).origin}</code>.</p>
</section>
<form method="post" action="/oauth/authorize">
  ${csrfField(ctx)}
  <input type="hidden" name="client_id" value="${parameters.clientId}">
  <input type="hidden" name="response_type" value="${parameters.responseType}">
  ${parameters.state === null ? '' : html`<input type="hidden" name="state" value="${parameters.state}">`}
  <label for="consent-organization">Organization</label>
  <select id="consent-organization" name="organization_id">${options}</select>
  <p><button type="submit" name="decision" value="approve" class="primary">Authorize</button> <button type="submit" name="decision" value="deny">Deny</button></p>
</form>`,
  });
}

export function registerConsentPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/oauth/authorize', async (ctx) => {
    const parameters = fromQuery(ctx);
    const app = await requestedApp(ctx, deps, parameters);
    if (app === null) return;
    const account = ctx.state.signedIn;
    if (account === undefined) {
      // The whole original address, extra parameters included, is where the login comes back to.
      ctx.redirect(loginPath(safeReturnPath(ctx.originalUrl) ?? safeReturnPath(consentPath(parameters))));
      return;
    }
    consentPage(ctx, app, account, parameters);
  });

  router.post('/oauth/authorize', async (ctx) => {
    const parameters = fromForm(ctx);
    const app = await requestedApp(ctx, deps, parameters);
    if (app === null) return;
    const account = ctx.state.signedIn;
    if (account === undefined) {
      // The session ended while the page was open: log in again, then decide again.
      ctx.redirect(loginPath(safeReturnPath(consentPath(parameters))));
      return;
    }
    const decision = formField(ctx, 'decision');
    if (decision === 'deny') {
      ctx.redirect(redirectWith(app, { error: 'access_denied', state: parameters.state }));
      return;
    }
    const organizationId = formField(ctx, 'organization_id');
    if (decision !== 'approve' || !isMember(account.user, organizationId)) {
      consentPage(ctx, app, account, parameters, 'Choose one of your organizations, then Authorize or Deny.');
      return;
    }
    const code = await approve(deps.db, deps.secrets, { app, user: account.user, organizationId, now: deps.now() });
    ctx.redirect(redirectWith(app, { code, state: parameters.state }));
  });
}
