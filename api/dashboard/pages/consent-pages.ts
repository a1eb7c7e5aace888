import type Router from '@koa/router';
import { isMember } from '../../../shared/domain/accounts/accounts.ts';
import { approve } from '../../../shared/domain/oauth/authorization.ts';
import {
  checkAuthorizationRequest,
  type AuthorizationParameters,
  type RequestedGrant,
  maxStateLength,
  type UntrustedRequestProblem,
} from '../../../shared/domain/oauth/authorization-request.ts';
import type { StoredApp } from '../../../shared/domain/oauth/oauth-apps.ts';
import { apiScopesOf } from '../../../shared/domain/oauth/scope.ts';
import { holdsEveryScope, scopeDescriptions } from '../../../shared/domain/api-keys/scopes.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { formField } from '../form-body.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { csrfField, renderPage, renderProblem } from '../layout.ts';
import { loginPath, safeReturnPath } from '../return-target.ts';
import { authorizationParameters, consentPath, parameterFields } from './authorization-parameters.ts';
import type { DashboardRouterContext, DashboardState, SignedIn } from '../state.ts';

/** The app's redirect URL with our answer added to whatever query it already has. */
function redirectWith(app: StoredApp, answer: Record<string, string | null>): string {
  const target = new URL(app.redirectUrl);
  for (const [name, value] of Object.entries(answer)) if (value !== null) target.searchParams.set(name, value);
  return target.toString();
}

const untrustedProblems: Record<UntrustedRequestProblem, (t: Translate) => string> = {
  unknown_client: (t) => t('consent.unknownClient'),
  redirect_uri_mismatch: (t) => t('consent.redirectUriMismatch'),
  unsupported_response_type: (t) => t('consent.unsupportedResponseType'),
  state_too_long: (t) => t('consent.stateTooLong', { max: maxStateLength }),
};

/**
 * The app and what the approval grants, or null once the request has been answered: a request
 * whose client or redirect URI is not trusted gets a page here, never a redirect (RFC 6749
 * §4.1.2.1); any other invalid request is sent back to the app's redirect URL with its error.
 */
async function checkedRequest(
  ctx: DashboardRouterContext,
  deps: DashboardDeps,
  parameters: AuthorizationParameters,
): Promise<{ app: StoredApp; grant: RequestedGrant } | null> {
  const check = await checkAuthorizationRequest(deps.db, parameters);
  switch (check.outcome) {
    case 'untrusted': {
      const t = words(ctx);
      renderProblem(ctx, 400, t('consent.invalidRequest'),
        t('consent.nothingShared', { problem: untrustedProblems[check.problem](t) }));
      return null;
    }
    case 'refused':
      ctx.redirect(redirectWith(check.app, {
        error: check.error,
        error_description: check.description,
        state: parameters.state,
      }));
      return null;
    case 'acceptable':
      return { app: check.app, grant: check.grant };
  }
}

/** What the token will be able to do: the scopes the app asked for, each with what it allows. */
function permissionList(t: Translate, scope: string): SafeHtml {
  const scopes = apiScopesOf(scope);
  const intro = html`<p>${t(holdsEveryScope(scopes) ? 'consent.everyScope' : 'consent.theseScopes')}</p>`;
  const items = scopes.map((name) => html`<li><code>${name}</code>: ${scopeDescriptions[name]};</li>`);
  return html`${intro}
<ul id="consent-scopes">${items}</ul>`;
}

function consentPage(
  ctx: DashboardRouterContext,
  app: StoredApp,
  grant: RequestedGrant,
  account: SignedIn,
  parameters: AuthorizationParameters,
  problem?: string,
): void {
  const picture = webUrl(app.pictureUrl);
  const options = account.organizations.map((organization) => html`<option value="${organization.id}"${organization.id === account.organization.id ? html` selected` : ''}>${organization.name}</option>`);
  const t = words(ctx);
  const approvedApps = html`<a href="/approved-apps">${t('nav.approvedApps')}</a>`;
  const origin = html`<code>${new URL(app.redirectUrl).origin}</code>`;
  const logo = t('consent.appLogo', { app: app.name });
  renderPage(ctx, {
    status: problem === undefined ? 200 : 400,
    title: t('consent.title', { app: app.name }),
    body: html`${problem === undefined ? '' : html`<p class="error" role="alert">${problem}</p>`}
<section aria-labelledby="app-heading" class="consent-app">
${picture === null ? '' : html`<img class="app-picture" src="${picture}" alt="${logo}">`}
<div><h2 id="app-heading">${app.name}</h2>
${app.description === null || app.description === undefined ? '' : html`<p>${app.description}</p>`}</div>
</section>
<section aria-labelledby="permissions-heading">
<h2 id="permissions-heading">${t('consent.wantsToUse', { app: app.name })}</h2>
${permissionList(t, grant.scope)}
<p>${t.markup('consent.noExpiry', { approvedApps })}</p>
<p class="muted">${t.markup('consent.sentBack', { origin })}</p>
</section>
<form method="post" action="/oauth/authorize">
  ${csrfField(ctx)}
  ${parameterFields(parameters)}
  <label for="consent-organization">${t('consent.organization')}</label>
  <select id="consent-organization" name="organization_id">${options}</select>
  <p><button type="submit" name="decision" value="approve" class="primary">${t('consent.authorize')}</button>
  <button type="submit" name="decision" value="deny">${t('consent.deny')}</button></p>
</form>`,
  });
}

export function registerConsentPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/oauth/authorize', async (ctx) => {
    const parameters = authorizationParameters(ctx.query, { trimIds: false });
    const request = await checkedRequest(ctx, deps, parameters);
    if (request === null) return;
    const account = ctx.state.signedIn;
    if (account === undefined) {
      // The whole original address, extra parameters included, is where the login comes back to.
      ctx.redirect(loginPath(safeReturnPath(ctx.originalUrl) ?? safeReturnPath(consentPath(parameters))));
      return;
    }
    consentPage(ctx, request.app, request.grant, account, parameters);
  });

  router.post('/oauth/authorize', async (ctx) => {
    // The form repeats the request, and is checked again as if it had just arrived.
    const parameters = authorizationParameters(ctx.request.body, { trimIds: true });
    const request = await checkedRequest(ctx, deps, parameters);
    if (request === null) return;
    const { app, grant } = request;
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
      consentPage(ctx, app, grant, account, parameters, words(ctx)('consent.chooseOrganization'));
      return;
    }
    const approval = { app, user: account.user, organizationId, now: deps.now(), grant };
    const code = await approve(deps.db, deps.secrets, approval);
    ctx.redirect(redirectWith(app, { code, state: parameters.state }));
  });
}
