import type Router from '@koa/router';
import { deleteApp, editApp, findOwnedApp, organizationApp, registerApp, rotateAppSecret, type AppDetails, type StoredApp } from '../../../shared/domain/oauth/oauth-apps.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { formField } from '../form-body.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { sentence } from '../html-errors.ts';
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

function detailFields(details: AppDetails | null): SafeHtml {
  return html`<label for="app-name">App name</label>
<input id="app-name" name="name" required maxlength="100" value="${details?.name ?? ''}">
<label for="app-description">Description <span class="muted">(optional)</span></label>
<textarea id="app-description" name="description" maxlength="500" rows="3">${details?.description ?? ''}</textarea>
<label for="app-picture">Picture URL <span class="muted">(optional, http or https)</span></label>
<input id="app-picture" name="picture_url" type="url" value="${details?.pictureUrl ?? ''}">
<label for="app-redirect">Redirect URL</label>
<input id="app-redirect" name="redirect_url" type="url" required value="${details?.redirectUrl ?? ''}" aria-describedby="redirect-hint">
<p id="redirect-hint" class="muted">Where users return after approving or denying; https, or http on localhost.</p>`;
}

function messages(view: AppView): SafeHtml {
  return html`${view.problem === undefined ? '' : html`<p class="error" role="alert">${view.problem}</p>`}${view.notice === undefined ? '' : html`<p class="notice" role="status">${view.notice}</p>`}`;
}

function registrationPage(ctx: DashboardRouterContext, view: AppView, status = 200): void {
  renderPage(ctx, {
    status,
    title: 'OAuth app',
    body: html`${messages(view)}
<p>Register an app to let it act for SPS users who approve it, through the OAuth 2.0 authorization-code flow.</p>
<form method="post" action="/oauth-app">${csrfField(ctx)}${detailFields(view.typed ?? null)}<p><button type="submit" class="primary">Register app</button></p></form>`,
  });
}

function appPage(ctx: DashboardRouterContext, app: StoredApp, view: AppView, status = 200): void {
  const picture = webUrl(app.pictureUrl);
  const secret = view.clientSecret === undefined
    ? html`<p class="muted">The client secret was shown once, when it was made. Rotate it to get a new one.</p>`
    : html`<p class="notice" role="status">Copy the client secret now: it will not be shown again.</p>
<p>Client secret: <code id="client-secret" class="secret">${view.clientSecret}</code> <button type="button" data-copy="client-secret">Copy</button></p>`;
  const current: AppDetails = { name: app.name, description: app.description ?? '', pictureUrl: app.pictureUrl ?? '', redirectUrl: app.redirectUrl };
  renderPage(ctx, {
    status,
    title: 'OAuth app',
    body: html`${messages(view)}
<section aria-labelledby="app-heading">
<h2 id="app-heading">${picture === null ? '' : html`<img class="app-picture" src="${picture}" alt=""> `}${app.name}</h2>
${app.description === null || app.description === undefined ? '' : html`<p>${app.description}</p>`}
<p>Client ID: <code id="client-id" class="secret">${app.clientId}</code> <button type="button" data-copy="client-id">Copy</button></p>
${secret}
<p>Redirect URL: <code>${app.redirectUrl}</code></p>
<form method="post" action="/oauth-app/rotate-secret">${csrfField(ctx)}<input type="hidden" name="app_id" value="${app._id.toString()}">
  <p>Rotating makes a new client secret; the old one stops working for token exchange at once. Access tokens already issued keep working.</p>
  <button type="submit">Rotate client secret</button>
</form>
</section>
<section aria-labelledby="edit-heading">
<h2 id="edit-heading">Edit the app</h2>
<form method="post" action="/oauth-app/edit">${csrfField(ctx)}<input type="hidden" name="app_id" value="${app._id.toString()}">${detailFields(view.typed ?? current)}<p><button type="submit">Save changes</button></p></form>
</section>
<section aria-labelledby="delete-heading">
<h2 id="delete-heading">Delete the app</h2>
<p><a href="/oauth-app/delete">Delete this app…</a></p>
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
    const notice = ctx.query.deleted === '1' ? 'The app was deleted.' : ctx.query.saved === '1' ? 'Changes saved.' : undefined;
    if (app === null) registrationPage(ctx, notice === undefined ? {} : { notice });
    else appPage(ctx, app, notice === undefined ? {} : { notice });
  });

  router.post('/oauth-app', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    if ((await organizationApp(deps.db, organizationId)) !== null) throw new DomainError('conflict', 'this organization already has an OAuth app; edit it or delete it first');
    const typed = detailsFromForm(ctx);
    try {
      const { app, clientSecret } = await registerApp(deps.db, deps.secrets, organizationId, typed);
      appPage(ctx, app, { clientSecret, notice: 'The app is registered.' }, 201);
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
    appPage(ctx, app, { clientSecret, notice: 'A new client secret was made. The previous secret no longer works for token exchange; issued access tokens keep working.' });
  });

  router.get('/oauth-app/delete', requireSignIn(), async (ctx) => {
    const app = await organizationApp(deps.db, signedIn(ctx).organization.id);
    if (app === null) {
      ctx.redirect('/oauth-app');
      return;
    }
    renderPage(ctx, {
      title: `Delete ${app.name}?`,
      body: html`<div class="error" role="alert">
<p>Deleting <strong>${app.name}</strong> is irreversible:</p>
<ul>
  <li>every access token issued through it stops working at once, for every user and organization;</li>
  <li>it disappears from every user's approved apps;</li>
  <li>its client ID and secret can never be used again.</li>
</ul>
</div>
<form method="post" action="/oauth-app/delete">${csrfField(ctx)}<input type="hidden" name="app_id" value="${app._id.toString()}">
  <p><button type="submit" class="danger">Delete the app and revoke all its tokens</button> <a href="/oauth-app">Cancel</a></p>
</form>`,
    });
  });

  router.post('/oauth-app/delete', requireSignIn(), async (ctx) => {
    await deleteApp(deps.db, deps.caches, signedIn(ctx).organization.id, formField(ctx, 'app_id'), deps.now());
    ctx.redirect('/oauth-app?deleted=1');
  });
}
