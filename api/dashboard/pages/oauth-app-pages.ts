import type Router from '@koa/router';
import { deleteApp, editApp, findOwnedApp, organizationApp, registerApp, rotateAppSecret, type AppDetails, type StoredApp } from '../../../shared/domain/oauth/oauth-apps.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { formField } from '../form-body.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { sentence } from '../html-errors.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { csrfField, renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

interface AppView {
  /** In clear right after registration or rotation, the only times it exists in clear. */
  clientSecret?: string;
  notice?: string;
  problem?: string;
  /** What the user typed, shown again when the form was refused. */
  typed?: AppDetails;
}

function detailsFromForm(ctx: DashboardRouterContext): AppDetails {
  return { name: formField(ctx, 'name'), description: formField(ctx, 'description'), pictureUrl: formField(ctx, 'picture_url'), redirectUrl: formField(ctx, 'redirect_url') };
}

function detailFields(t: Translate, details: AppDetails | null): SafeHtml {
  return html`<label for="app-name">${t('oauthApp.appName')}</label>
<input id="app-name" name="name" required maxlength="100" value="${details?.name ?? ''}">
<label for="app-description">${t('oauthApp.description')} <span class="muted">${t('oauthApp.optional')}</span></label>
<textarea id="app-description" name="description" maxlength="500" rows="3">${details?.description ?? ''}</textarea>
<label for="app-picture">${t('oauthApp.pictureUrl')} <span class="muted">${t('oauthApp.pictureUrlHint')}</span></label>
<input id="app-picture" name="picture_url" type="url" value="${details?.pictureUrl ?? ''}">
<label for="app-redirect">${t('oauthApp.redirectUrl')}</label>
<input id="app-redirect" name="redirect_url" type="url" required value="${details?.redirectUrl ?? ''}" aria-describedby="redirect-hint">
<p id="redirect-hint" class="muted">${t('oauthApp.redirectUrlHint')}</p>`;
}

function messages(view: AppView): SafeHtml {
  return html`${view.problem === undefined ? '' : html`<p class="error" role="alert">${view.problem}</p>`}${view.notice === undefined ? '' : html`<p class="notice" role="status">${view.notice}</p>`}`;
}

function registrationPage(ctx: DashboardRouterContext, view: AppView, status = 200): void {
  const t = words(ctx);
  const button = html`<p><button type="submit" class="primary">${t('oauthApp.register')}</button></p>`;
  renderPage(ctx, {
    status,
    title: t('oauthApp.title'),
    body: html`${messages(view)}
<p>${t('oauthApp.intro')}</p>
<form method="post" action="/oauth-app">${csrfField(ctx)}${detailFields(t, view.typed ?? null)}${button}</form>`,
  });
}

function appPage(ctx: DashboardRouterContext, app: StoredApp, view: AppView, status = 200): void {
  const t = words(ctx);
  const picture = webUrl(app.pictureUrl);
  const copy = (id: string): SafeHtml => html`<button type="button" data-copy="${id}">${t('oauthApp.copy')}</button>`;
  const clientSecret = html`<code id="client-secret" class="secret">${view.clientSecret}</code>`;
  const secret = view.clientSecret === undefined
    ? html`<p class="muted">${t('oauthApp.secretShownOnce')}</p>`
    : html`<p class="notice" role="status">${t('oauthApp.copySecretNow')}</p>
<p>${t.markup('oauthApp.clientSecret', { secret: clientSecret })} ${copy('client-secret')}</p>`;
  const clientId = html`<code id="client-id" class="secret">${app.clientId}</code>`;
  const appField = html`<input type="hidden" name="app_id" value="${app._id.toString()}">`;
  const save = html`<p><button type="submit">${t('oauthApp.save')}</button></p>`;
  const current: AppDetails = { name: app.name, description: app.description ?? '', pictureUrl: app.pictureUrl ?? '', redirectUrl: app.redirectUrl };
  renderPage(ctx, {
    status,
    title: t('oauthApp.title'),
    body: html`${messages(view)}
<section aria-labelledby="app-heading">
<h2 id="app-heading">${picture === null ? '' : html`<img class="app-picture" src="${picture}" alt=""> `}${app.name}</h2>
${app.description === null || app.description === undefined ? '' : html`<p>${app.description}</p>`}
<p>${t.markup('oauthApp.clientId', { id: clientId })} ${copy('client-id')}</p>
${secret}
<p>${t.markup('oauthApp.redirectUrlIs', { url: html`<code>${app.redirectUrl}</code>` })}</p>
<form method="post" action="/oauth-app/rotate-secret">${csrfField(ctx)}<input type="hidden" name="app_id" value="${app._id.toString()}">
  <p>${t('oauthApp.rotateHint')}</p>
  <button type="submit">${t('oauthApp.rotateSecret')}</button>
</form>
</section>
<section aria-labelledby="edit-heading">
<h2 id="edit-heading">${t('oauthApp.editHeading')}</h2>
<form method="post" action="/oauth-app/edit">${csrfField(ctx)}${appField}${detailFields(t, view.typed ?? current)}
${save}</form>
</section>
<section aria-labelledby="delete-heading">
<h2 id="delete-heading">${t('oauthApp.deleteHeading')}</h2>
<p><a href="/oauth-app/delete">${t('oauthApp.deleteLink')}</a></p>
</section>`,
  });
}

/** A refused form is shown again with its values; anything other than bad input propagates. */
function refusal(error: unknown): DomainError {
  if (error instanceof DomainError && error.status < 500) return error;
  throw error;
}

export function registerOAuthAppPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/oauth-app', requireSignIn(), async (ctx) => {
    const app = await organizationApp(deps.db, signedIn(ctx).organization.id);
    const t = words(ctx);
    const notice = ctx.query.deleted === '1'
      ? t('oauthApp.deleted')
      : ctx.query.saved === '1' ? t('oauthApp.saved') : undefined;
    if (app === null) registrationPage(ctx, notice === undefined ? {} : { notice });
    else appPage(ctx, app, notice === undefined ? {} : { notice });
  });

  router.post('/oauth-app', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const t = words(ctx);
    if ((await organizationApp(deps.db, organizationId)) !== null) {
      throw new DomainError('conflict', t('oauthApp.alreadyHasApp'));
    }
    const typed = detailsFromForm(ctx);
    try {
      const { app, clientSecret } = await registerApp(deps.db, deps.secrets, organizationId, typed);
      appPage(ctx, app, { clientSecret, notice: t('oauthApp.registered') }, 201);
    } catch (error) {
      const refused = refusal(error);
      registrationPage(ctx, { typed, problem: sentence(refused.message) }, refused.status);
    }
  });

  router.post('/oauth-app/edit', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const app = await findOwnedApp(deps.db, organizationId, formField(ctx, 'app_id'));
    const typed = detailsFromForm(ctx);
    try {
      await editApp(deps.db, organizationId, app._id.toString(), typed);
      ctx.redirect('/oauth-app?saved=1');
    } catch (error) {
      const refused = refusal(error);
      appPage(ctx, app, { typed, problem: sentence(refused.message) }, refused.status);
    }
  });

  router.post('/oauth-app/rotate-secret', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const app = await findOwnedApp(deps.db, organizationId, formField(ctx, 'app_id'));
    const clientSecret = await rotateAppSecret(deps.db, deps.secrets, organizationId, app._id.toString());
    appPage(ctx, app, { clientSecret, notice: words(ctx)('oauthApp.secretRotated') });
  });

  router.get('/oauth-app/delete', requireSignIn(), async (ctx) => {
    const app = await organizationApp(deps.db, signedIn(ctx).organization.id);
    if (app === null) {
      ctx.redirect('/oauth-app');
      return;
    }
    const t = words(ctx);
    renderPage(ctx, {
      title: t('oauthApp.deleteTitle', { app: app.name }),
      body: html`<div class="error" role="alert">
<p>${t.markup('oauthApp.deleteWarning', { app: html`<strong>${app.name}</strong>` })}</p>
<ul>
  <li>${t('oauthApp.deleteTokens')}</li>
  <li>${t('oauthApp.deleteApproved')}</li>
  <li>${t('oauthApp.deleteCredentials')}</li>
</ul>
</div>
<form method="post" action="/oauth-app/delete">${csrfField(ctx)}<input type="hidden" name="app_id" value="${app._id.toString()}">
  <p><button type="submit" class="danger">${t('oauthApp.deleteConfirm')}</button>
  <a href="/oauth-app">${t('oauthApp.cancel')}</a></p>
</form>`,
    });
  });

  router.post('/oauth-app/delete', requireSignIn(), async (ctx) => {
    await deleteApp(deps.db, deps.caches, signedIn(ctx).organization.id, formField(ctx, 'app_id'), deps.now());
    ctx.redirect('/oauth-app?deleted=1');
  });
}
