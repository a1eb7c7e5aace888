import type Router from '@koa/router';
import {
  createApiKey, listApiKeys, maxKeyNameLength, maxKeysPerOrganization, revokeApiKey, type ApiKeyView,
} from '../../../shared/domain/api-keys/api-keys.ts';
import { apiScopes, isApiScope, scopeDescriptions } from '../../../shared/domain/api-keys/scopes.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { formField, formValues } from '../form-body.ts';
import { html, type SafeHtml } from '../html.ts';
import { sentence } from '../html-errors.ts';
import { words } from '../i18n/translate.ts';
import { csrfField } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

/** What the named-keys section shows besides the list: a new key once, a refusal, what was typed. */
export interface NamedKeysView {
  created?: { id: string; secret: string };
  notice?: string;
  problem?: string;
  typed?: { name: string; scopes: string[]; expires: string };
}

/** Renders the settings page with this view of the named keys (settings-pages.ts owns the page). */
export type SettingsRenderer = (ctx: DashboardRouterContext, keys: NamedKeysView, status?: number) => Promise<void>;

const shortTime = (iso: string | null, never: string): string =>
  iso === null ? never : `${iso.replace('T', ' ').slice(0, 16)} UTC`;

function keyRow(ctx: DashboardRouterContext, key: ApiKeyView, view: NamedKeysView, now: Date): SafeHtml {
  const t = words(ctx);
  const secret = view.created?.id === key.id
    ? html`<p class="notice" role="status">${t('apiKeys.copyNow')}</p>
<p><code id="new-api-key" class="secret">${view.created.secret}</code>
<button type="button" data-copy="new-api-key">${t('apiKeys.copy')}</button></p>`
    : '';
  const expired = key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime()
    ? html` <strong>${t('apiKeys.expired')}</strong>`
    : '';
  return html`<tr>
<td>${key.name} <code class="muted">${key.start}…</code>${secret}</td>
<td>${key.scopes.join(', ')}</td>
<td>${shortTime(key.expiresAt, t('apiKeys.never'))}${expired}</td>
<td>${shortTime(key.lastUsedAt, t('apiKeys.notYet'))}</td>
<td><form method="post" action="/settings/api-keys/${key.id}/revoke" class="inline">${csrfField(ctx)}
<button type="submit" class="danger">${t('apiKeys.revoke')}</button></form></td>
</tr>`;
}

function createForm(ctx: DashboardRouterContext, typed: NamedKeysView['typed']): SafeHtml {
  const t = words(ctx);
  const checked = new Set(typed?.scopes ?? []);
  const choices = apiScopes.map((scope) => html`<li><label>
<input type="checkbox" name="scopes" value="${scope}"${checked.has(scope) ? html` checked` : ''}>
<code>${scope}</code> <span class="muted">${scopeDescriptions[scope]}</span></label></li>`);
  return html`<form method="post" action="/settings/api-keys">${csrfField(ctx)}
<label for="api-key-name">${t('apiKeys.name')}</label>
<input id="api-key-name" name="name" required maxlength="${maxKeyNameLength}" value="${typed?.name ?? ''}">
<fieldset><legend>${t('apiKeys.scopes')}</legend><ul class="choices">${choices}</ul></fieldset>
<label for="api-key-expires">${t('apiKeys.expiresOn')}</label>
<input id="api-key-expires" name="expires" type="date" value="${typed?.expires ?? ''}">
<p><button type="submit" class="primary">${t('apiKeys.createKey')}</button></p>
</form>`;
}

/** The organization's named keys: the list with scopes, expiry and last use, revoke buttons and a create form. */
export async function namedKeysSection(
  ctx: DashboardRouterContext,
  deps: DashboardDeps,
  view: NamedKeysView,
): Promise<SafeHtml> {
  const t = words(ctx);
  const keys = await listApiKeys(deps.db, signedIn(ctx).organization.id);
  const now = deps.now();
  const headings = html`<th>${t('apiKeys.name')}</th><th>${t('apiKeys.scopes')}</th><th>${t('apiKeys.expires')}</th>
<th>${t('apiKeys.lastUsed')}</th><th></th>`;
  const table = keys.length === 0
    ? html`<p>${t('apiKeys.none')}</p>`
    : html`<div class="table-scroll" tabindex="0">
<table><thead><tr>${headings}</tr></thead>
<tbody>${keys.map((key) => keyRow(ctx, key, view, now))}</tbody>
</table></div>`;
  const problem = view.problem === undefined ? '' : html`<p class="error" role="alert">${view.problem}</p>`;
  const notice = view.notice === undefined ? '' : html`<p class="notice" role="status">${view.notice}</p>`;
  return html`<section aria-labelledby="named-keys-heading">
<h2 id="named-keys-heading">${t('apiKeys.heading')}</h2>
${problem}${notice}
<p>${t('apiKeys.intro', { max: maxKeysPerOrganization })}</p>
${table}
<h3>${t('apiKeys.createHeading')}</h3>
${createForm(ctx, view.typed)}
</section>`;
}

/** `YYYY-MM-DD` from the date field: the start of that day, UTC; '' is no expiry. */
function expiryOf(ctx: DashboardRouterContext, expires: string): Date | null {
  if (expires === '') return null;
  const at = /^\d{4}-\d{2}-\d{2}$/.test(expires) ? new Date(`${expires}T00:00:00Z`) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) {
    const t = words(ctx);
    throw new DomainError('validation_failed', t('apiKeys.expiryNotDate'), [
      { path: 'expires', message: t('apiKeys.notADate') },
    ]);
  }
  return at;
}

export function registerApiKeyPages(
  router: Router<DashboardState>,
  deps: DashboardDeps,
  render: SettingsRenderer,
): void {
  router.post('/settings/api-keys', requireSignIn(), async (ctx) => {
    const typed = {
      name: formField(ctx, 'name'), scopes: formValues(ctx, 'scopes'), expires: formField(ctx, 'expires'),
    };
    const t = words(ctx);
    try {
      const unknown = typed.scopes.find((scope) => !isApiScope(scope));
      if (unknown !== undefined) {
        throw new DomainError('validation_failed', t('apiKeys.noSuchScope', { scope: unknown }));
      }
      const { key, secret } = await createApiKey(deps.db, deps.secrets, signedIn(ctx).organization.id, {
        name: typed.name, scopes: typed.scopes.filter(isApiScope), expiresAt: expiryOf(ctx, typed.expires),
      }, deps.now());
      await render(ctx, { created: { id: key.id, secret }, notice: t('apiKeys.created', { name: key.name }) }, 201);
    } catch (error) {
      // A refused form is shown again with its values; anything other than bad input propagates.
      if (!(error instanceof DomainError) || error.status >= 500) throw error;
      await render(ctx, { typed, problem: sentence(error.message) }, error.status);
    }
  });

  router.post('/settings/api-keys/:id/revoke', requireSignIn(), async (ctx) => {
    await revokeApiKey(deps.db, deps.caches, signedIn(ctx).organization.id, ctx.params.id ?? '', deps.now());
    await render(ctx, { notice: words(ctx)('apiKeys.revoked') });
  });
}
