import type Router from '@koa/router';
import { addOrganization, isMember, revealApiKey, rotateApiKey } from '../../../shared/domain/accounts/accounts.ts';
import { selectOrganization } from '../../../shared/domain/accounts/sessions.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { namedKeysSection, registerApiKeyPages, type NamedKeysView } from './api-key-pages.ts';
import { formField } from '../form-body.ts';
import { html, type SafeHtml } from '../html.ts';
import { words } from '../i18n/translate.ts';
import { csrfField, renderPage } from '../layout.ts';
import { defaultLandingPath, safeReturnPath } from '../return-target.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

interface KeyView {
  /** The key in clear, when the user asked to see it (or just rotated it). */
  apiKey?: string;
  notice?: string;
}

/** What stands for the key until it is revealed: its prefix, the rest masked (the same in every language). */
const maskedKey = 'sps_••••••••••••••••';

function apiKeySection(ctx: DashboardRouterContext, view: KeyView): SafeHtml {
  const t = words(ctx);
  const reveal = html`<button type="submit">${t('settings.revealApiKey')}</button>`;
  const copy = html`<button type="button" data-copy="api-key">${t('settings.copy')}</button>`;
  const shown = view.apiKey === undefined
    ? html`<p><span class="secret" aria-label="${t('settings.apiKeyHidden')}">${maskedKey}</span></p>
<form method="post" action="/settings/api-key/reveal">${csrfField(ctx)}${reveal}</form>`
    : html`<p><code id="api-key" class="secret">${view.apiKey}</code> ${copy}</p>`;
  return html`<section aria-labelledby="api-key-heading">
<h2 id="api-key-heading">${t('settings.apiKey')}</h2>
${view.notice === undefined ? '' : html`<p class="notice" role="status">${view.notice}</p>`}
<p>${t.markup('settings.apiKeyUse', { header: html`<code>Authorization</code>` })}</p>
${shown}
<form method="post" action="/settings/api-key/rotate">
  ${csrfField(ctx)}
  <p>${t('settings.rotateHint')}</p>
  <button type="submit" class="danger">${t('settings.rotateApiKey')}</button>
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
  const t = words(ctx);
  const account = signedIn(ctx);
  const named = await namedKeysSection(ctx, deps, keys);
  const organizationId = t.markup('settings.organizationId', { id: html`<code>${account.organization.id}</code>` });
  const organization = t.markup('settings.organization', {
    name: html`<strong>${account.organization.name}</strong>`,
    id: html`<span class="muted">${organizationId}</span>`,
  });
  renderPage(ctx, {
    status,
    title: t('settings.title'),
    body: html`<p>${organization}</p>
${apiKeySection(ctx, view)}
${named}
<section aria-labelledby="organizations-heading">
<h2 id="organizations-heading">${t('settings.organizations')}</h2>
<p>${t.count('settings.memberships', account.organizations.length)}</p>
<form method="post" action="/organizations">
  ${csrfField(ctx)}
  <label for="new-organization">${t('settings.createAnotherOrganization')}</label>
  <input id="new-organization" name="name" required maxlength="200">
  <p><button type="submit">${t('settings.createOrganization')}</button></p>
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
    const notice = words(ctx)('settings.apiKeyRotated');
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
    if (!isMember(account.user, organizationId)) throw new DomainError('not_found', words(ctx)('settings.notMember'));
    await selectOrganization(deps.db, account.sessionId, organizationId);
    ctx.redirect(safeReturnPath(formField(ctx, 'return_to')) ?? defaultLandingPath);
  });
}
