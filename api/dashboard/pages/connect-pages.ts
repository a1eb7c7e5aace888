import type Router from '@koa/router';
import {
  connectModule,
  finishAuthorization,
  finishPick,
  offeredAccounts,
  startConnect,
  type ConnectOutcome,
} from '../../../shared/domain/channels/connect-channel.ts';
import {
  connectWithCredentials,
  credentialsPlatform,
} from '../../../shared/domain/channels/connect-with-credentials.ts';
import { connectThroughLink, readCredentialsLink } from '../../../shared/domain/channels/credential-connect-links.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { CredentialsConnect } from '../../../shared/platforms/kit/platform-connect.ts';
import type { PlatformModule } from '../../../shared/platforms/kit/platform-module.ts';
import { PlatformApps } from '../../../shared/platforms/platform-apps.ts';
import { classifyError } from '../../middleware/error-handler.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { formField } from '../form-body.ts';
import { sentence } from '../html-errors.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { credentialsForm, refreshField } from '../channels/credentials-form-view.ts';
import { csrfField, renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

const queryText = (ctx: DashboardRouterContext, name: string): string | null => {
  const value = ctx.query[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
};

/** A posted field, or null when the form left it empty. */
const formText = (ctx: DashboardRouterContext, name: string): string | null => {
  const value = formField(ctx, name);
  return value === '' ? null : value;
};

/** The query's single-valued parameters. */
const queryValues = (ctx: DashboardRouterContext): Record<string, string> =>
  Object.fromEntries(
    Object.entries(ctx.query).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
  );

/** The settings the operator has yet to set for `module`, as a list in the reader's language; null when set. */
function missingSettings(t: Translate, deps: DashboardDeps, module: PlatformModule): string | null {
  if (deps.platforms.isConfigured(module)) return null;
  return new Intl.ListFormat(t.locale, { type: 'conjunction' }).format(PlatformApps.missingSettings(module));
}

/** What a Connect button says about a platform that cannot be connected here. */
export function connectBlocker(t: Translate, deps: DashboardDeps, module: PlatformModule): string | null {
  const settings = missingSettings(t, deps, module);
  return settings === null ? null : t('connect.notConfigured', { settings });
}

/**
 * A refusal the person can fix (a wrong password, a missing field), said above the form again;
 * anything else (a used or expired link, a server fault) is thrown for the error page.
 */
function formProblem(error: unknown): { problem: string; status: number } {
  if (!(error instanceof DomainError) || error.code === 'invalid_state') throw error;
  const mapped = classifyError(error);
  const details = error.details?.map((detail) => detail.message).join('; ');
  return {
    problem: sentence(details === undefined || details === '' ? mapped.message : details),
    status: mapped.statusCode,
  };
}

/** The platform's fields as the form sent them (missing ones empty). */
const formValues = (ctx: DashboardRouterContext, connect: CredentialsConnect): Record<string, string> =>
  Object.fromEntries(connect.fields.map((field) => [field.key, formField(ctx, field.key)]));

/**
 * The start of an authorization is a POST carrying the session's CSRF token: it records a connect
 * attempt and may register SPS on a server the user names, so a link from another site must not
 * be able to do it for a signed-in user.
 */
function startForm(
  ctx: DashboardRouterContext,
  module: PlatformModule,
  refresh: string | null,
  fields: SafeHtml,
): SafeHtml {
  const { identifier, displayName } = module.definition;
  return html`<form method="post" action="/channels/connect/${identifier}/start">
    ${csrfField(ctx)}${refreshField(refresh)}${fields}
    <button type="submit">${words(ctx)('connect.continueTo', { platform: displayName })}</button>
  </form>`;
}

function serverForm(ctx: DashboardRouterContext, module: PlatformModule, refresh: string | null): SafeHtml {
  const { displayName } = module.definition;
  const t = words(ctx);
  return startForm(
    ctx,
    module,
    refresh,
    html`<p>
      <label for="instance">${t('connect.yourServer', { platform: displayName })}</label><br /><input
        id="instance"
        name="instance"
        type="text"
        placeholder="${t('connect.serverExample')}"
        required
      /><br />
      <span class="muted">${t('connect.registersOnServer')}</span>
    </p>`,
  );
}

function connectSection(
  ctx: DashboardRouterContext,
  deps: DashboardDeps,
  module: PlatformModule,
  refresh: string | null,
): SafeHtml {
  const { displayName } = module.definition;
  const t = words(ctx);
  const settings = missingSettings(t, deps, module);
  const connect = module.connect;
  if (settings !== null) {
    return html`<p class="notice">${t('connect.platformNotConfigured', { platform: displayName, settings })}</p>`;
  }
  if (connect.kind === 'credentials')
    return credentialsForm(ctx, module, connect, { refresh, values: {}, problem: null });
  if (connect.registerClient !== undefined) return serverForm(ctx, module, refresh);
  return html`<p>${t('connect.sentToApprove', { platform: displayName })}</p>
    ${startForm(ctx, module, refresh, html``)}`;
}

/** Said before connecting, not at the first failed post: this server's media cannot be fetched by the platform. */
function mediaWarning(t: Translate, deps: DashboardDeps, module: PlatformModule): SafeHtml {
  const { identifier, displayName, mediaByUrl } = module.definition;
  if (deps.mediaReach(identifier)) return html``;
  // TikTok pulls only photos: its videos are uploaded and work from any address.
  const warning = mediaByUrl === 'images' ? 'connect.imagesNotReachable' : 'connect.mediaNotReachable';
  return html`<p class="notice" role="note">${t(warning, { platform: displayName })}</p>`;
}

function renderConnectPage(
  ctx: DashboardRouterContext,
  deps: DashboardDeps,
  module: PlatformModule,
  section: SafeHtml,
  status = 200,
): void {
  const { definition } = module;
  const t = words(ctx);
  const platform = definition.displayName;
  renderPage(ctx, {
    status,
    title: t('connect.connectPlatform', { platform }),
    body: html`${mediaWarning(t, deps, module)}${section}
      <h2>${t('connect.about', { platform })}</h2>
      <p>${definition.rules}</p>
      <p>${t('connect.textLimit', { limit: definition.textLimit })} ${definition.mediaRules}</p>
      <p><a href="/channels">${t('channels.backToChannels')}</a></p>`,
  });
}

function renderOutcome(ctx: DashboardRouterContext, provider: string, outcome: ConnectOutcome): void {
  if (outcome.kind === 'pick') {
    ctx.redirect(`/channels/pick/${provider}?key=${encodeURIComponent(outcome.key)}`);
    return;
  }
  if (ctx.state.signedIn?.organization.id === outcome.organizationId) {
    ctx.redirect(`/channels?connected=${encodeURIComponent(outcome.id)}`);
    return;
  }
  // Someone sent here by an API client's app: with no dashboard session, or one working in
  // another organization (a form link's channel joins the link's), whose channel list lacks it.
  const t = words(ctx);
  renderPage(ctx, {
    title: t('connect.connectedTitle'),
    body: html`<p role="status">
      ${t.markup('connect.connectedNotice', { name: outcome.name, channel: html`<code>${outcome.id}</code>` })}
    </p>`,
  });
}

function pickForm(
  ctx: DashboardRouterContext,
  provider: string,
  key: string,
  accounts: Awaited<ReturnType<typeof offeredAccounts>>,
): SafeHtml {
  const choices = accounts.map((account, index) => {
    const picture = webUrl(account.picture);
    return html`<li>
      <label
        ><input type="radio" name="account" value="${account.accountId}" ${index === 0 ? html` checked` : ''} />
        ${picture === null
          ? ''
          : html`<img src="${picture}" alt="" width="24" height="24" /> `}${account.name}${account.username === null
          ? ''
          : html` <span class="muted">${account.username}</span>`}</label
      >
    </li>`;
  });
  const t = words(ctx);
  return html`<form method="post" action="/channels/pick/${provider}">
    ${csrfField(ctx)}<input type="hidden" name="key" value="${key}" />
    <fieldset>
      <legend>${t('connect.pickQuestion')}</legend>
      <ul class="choices">
        ${choices}
      </ul>
    </fieldset>
    <button type="submit">${t('connect.pickButton')}</button>
  </form>`;
}

/**
 * The credentials form reached through a form link (GET /social/:provider with an API key): no
 * sign-in, and the link's organization whoever is signed in. The CSRF pair still guards the
 * POST (its seed cookie needs no session); the link's key, bound single use to the
 * organization, is what lets it save there. Without a key, the signed-in routes answer.
 */
function registerCredentialsLinkPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/channels/connect/:provider', async (ctx, next) => {
    const key = queryText(ctx, 'key');
    if (key === null) {
      await next();
      return;
    }
    const { module, connect } = credentialsPlatform(ctx.params.provider ?? '');
    const { organizationName } = await readCredentialsLink(deps, { provider: module.definition.identifier, key });
    const state = { refresh: null, values: {}, problem: null, link: { key, organizationName } };
    renderConnectPage(ctx, deps, module, credentialsForm(ctx, module, connect, state));
  });

  router.post('/channels/connect/:provider', async (ctx, next) => {
    const key = formText(ctx, 'key');
    if (key === null) {
      await next();
      return;
    }
    const { module, connect } = credentialsPlatform(ctx.params.provider ?? '');
    const claim = { provider: module.definition.identifier, key };
    // Read first: a used or expired link is said on its own page, not above a form that cannot work.
    const { organizationName } = await readCredentialsLink(deps, claim);
    const values = formValues(ctx, connect);
    try {
      renderOutcome(ctx, claim.provider, await connectThroughLink(deps, claim, values));
    } catch (error) {
      const { problem, status } = formProblem(error);
      const state = { refresh: null, values, problem, link: { key, organizationName } };
      const form = credentialsForm(ctx, module, connect, state);
      renderConnectPage(ctx, deps, module, form, status);
    }
  });
}

/** Connect buttons' targets: forms, the OAuth round trip, the platform's callback and the picker. */
export function registerConnectPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  registerCredentialsLinkPages(router, deps);
  const connectPage = (ctx: DashboardRouterContext) => {
    const module = connectModule(ctx.params.provider ?? '');
    renderConnectPage(ctx, deps, module, connectSection(ctx, deps, module, queryText(ctx, 'refresh')));
  };
  router.get('/channels/connect/:provider', requireSignIn(), connectPage);
  // A link to the start (a bookmark, or another site's attempt) starts nothing: it shows the page whose button does.
  router.get('/channels/connect/:provider/start', requireSignIn(), connectPage);

  router.post('/channels/connect/:provider/start', requireSignIn(), async (ctx) => {
    const { url } = await startConnect(deps, {
      organizationId: signedIn(ctx).organization.id,
      provider: ctx.params.provider ?? '',
      refreshChannelId: formText(ctx, 'refresh'),
      serverUrl: formText(ctx, 'instance'),
      customer: null,
    });
    ctx.redirect(url);
  });

  router.post('/channels/connect/:provider', requireSignIn(), async (ctx) => {
    const { module, connect } = credentialsPlatform(ctx.params.provider ?? '');
    const values = formValues(ctx, connect);
    const refresh = formText(ctx, 'refresh');
    try {
      const connected = await connectWithCredentials(
        deps,
        connect,
        deps.platforms.context(module.definition.identifier),
        {
          organizationId: signedIn(ctx).organization.id,
          provider: module.definition.identifier,
          values,
          refreshChannelId: refresh,
        },
      );
      ctx.redirect(`/channels?connected=${encodeURIComponent(connected.id)}`);
    } catch (error) {
      const { problem, status } = formProblem(error);
      const form = credentialsForm(ctx, module, connect, { refresh, values, problem });
      renderConnectPage(ctx, deps, module, form, status);
    }
  });

  // No sign-in needed: the state alone says which organization started this (API clients' users).
  router.get('/channels/callback/:provider', async (ctx) => {
    const provider = ctx.params.provider ?? '';
    const outcome = await finishAuthorization(deps, {
      provider,
      state: queryText(ctx, 'state') ?? '',
      code: queryText(ctx, 'code'),
      error: queryText(ctx, 'error'),
      errorDescription: queryText(ctx, 'error_description'),
      // All of them: the domain passes on only what the platform declares it needs.
      parameters: queryValues(ctx),
      organizationId: ctx.state.signedIn?.organization.id ?? null,
    });
    renderOutcome(ctx, provider, outcome);
  });

  router.get('/channels/pick/:provider', async (ctx) => {
    const provider = ctx.params.provider ?? '';
    const key = queryText(ctx, 'key') ?? '';
    const claim = { provider, key, organizationId: ctx.state.signedIn?.organization.id ?? null };
    const accounts = await offeredAccounts(deps, claim);
    const module = connectModule(provider);
    renderPage(ctx, {
      title: words(ctx)('connect.pickTitle', { platform: module.definition.displayName }),
      body: pickForm(ctx, provider, key, accounts),
    });
  });

  router.post('/channels/pick/:provider', async (ctx) => {
    const provider = ctx.params.provider ?? '';
    const claim = {
      provider,
      key: formField(ctx, 'key'),
      organizationId: ctx.state.signedIn?.organization.id ?? null,
    };
    renderOutcome(ctx, provider, await finishPick(deps, claim, formField(ctx, 'account')));
  });
}
