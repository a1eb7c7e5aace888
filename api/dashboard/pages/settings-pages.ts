import type Router from '@koa/router';
import { addOrganization, isMember, revealApiKey, rotateApiKey } from '../../../shared/domain/accounts/accounts.ts';
import { selectOrganization } from '../../../shared/domain/accounts/sessions.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { namedKeysSection, registerApiKeyPages, type NamedKeysView } from './api-key-pages.ts';
import { formField } from '../form-body.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, renderPage } from '../layout.ts';
import { defaultLandingPath, safeReturnPath } from '../return-target.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

interface KeyView {
  /** The key in clear, when the user asked to see it (or just rotated it). */
  apiKey?: string;
  notice?: string;
}

function apiKeySection(ctx: DashboardRouterContext, view: KeyView): SafeHtml {
  const shown = view.apiKey === undefined
    ? html`<p><span class="secret" aria-label="API key, hidden">sps_••••••••••••••••</span></p>
<form method="post" action="/settings/api-key/reveal">${csrfField(ctx)}<button type="submit">Reveal API key</button></form>`
    : html`<p><code id="api-key" class="secret">${view.apiKey}</code> <button type="button" data-copy="api-key">Copy</button></p>`;
  return html`<section aria-labelledby="api-key-heading">
<h2 id="api-key-heading">API key</h2>
${view.notice === undefined ? '' : html`<p class="notice" role="status">${view.notice}</p>`}
<p>Send it in the <code>Authorization</code> header of every public API request. Keep it secret: it acts
for this organization with every scope.</p>
${shown}
<form method="post" action="/settings/api-key/rotate">
  ${csrfField(ctx)}
  <p>Rotating makes a new key; the current key stops working at once.</p>
  <button type="submit" class="danger">Rotate API key</button>
</form>
</section>`;
}

async function settingsPage(
  ctx: DashboardRouterContext,
  deps: DashboardDeps,
  view: KeyView,
  keys: NamedKeysView = {},
  status = 200,
): Promise<void> {
  const account = signedIn(ctx);
  const named = await namedKeysSection(ctx, deps, keys);
  renderPage(ctx, {
    status,
    title: 'Settings',
    body: html`<p>Organization: <strong>${account.organization.name}</strong> <span class="muted">(id <code>${account.organization.id}</code>)</span></p>
${apiKeySection(ctx, view)}
${named}
<section aria-labelledby="organizations-heading">
<h2 id="organizations-heading">Organizations</h2>
<p>You belong to ${account.organizations.length === 1 ? 'one organization' : `${account.organizations.length} organizations`}; switch between them in the header.</p>
<form method="post" action="/organizations">
  ${csrfField(ctx)}
  <label for="new-organization">Create another organization</label>
  <input id="new-organization" name="name" required maxlength="200">
  <p><button type="submit">Create organization</button></p>
</form>
</section>`,
  });
}

export function registerSettingsPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/settings', requireSignIn(), async (ctx) => {
    await settingsPage(ctx, deps, {});
  });
  registerApiKeyPages(router, deps, (ctx, keys, status) => settingsPage(ctx, deps, {}, keys, status));

  router.post('/settings/api-key/reveal', requireSignIn(), async (ctx) => {
    await settingsPage(ctx, deps, { apiKey: await revealApiKey(deps.db, deps.secrets, signedIn(ctx).organization.id) });
  });

  router.post('/settings/api-key/rotate', requireSignIn(), async (ctx) => {
    const apiKey = await rotateApiKey(deps.db, deps.secrets, deps.caches, signedIn(ctx).organization.id);
    const notice = 'A new API key was made. The previous key no longer works: update every place that used it.';
    await settingsPage(ctx, deps, { apiKey, notice });
  });

  router.post('/organizations', requireSignIn(), async (ctx) => {
    const account = signedIn(ctx);
    const organizationId = await addOrganization(deps.db, deps.secrets, account.user, formField(ctx, 'name'));
    await selectOrganization(deps.db, account.sessionId, organizationId);
    ctx.redirect(defaultLandingPath);
  });

  router.post('/organizations/switch', requireSignIn(), async (ctx) => {
    const account = signedIn(ctx);
    const organizationId = formField(ctx, 'organization_id');
    if (!isMember(account.user, organizationId)) throw new DomainError('not_found', 'you are not a member of that organization');
    await selectOrganization(deps.db, account.sessionId, organizationId);
    ctx.redirect(safeReturnPath(formField(ctx, 'return_to')) ?? defaultLandingPath);
  });
}
