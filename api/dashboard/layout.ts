import { randomBytes } from 'node:crypto';
import { assetPath } from './assets.ts';
import { html, SafeHtml } from './html.ts';
import { words, type PlainKey, type Translate } from './i18n/translate.ts';
import type { MessageKey } from './i18n/messages-en.ts';
import { csrfToken, type DashboardContext, type DashboardState, type SignedIn } from './state.ts';

/**
 * htmx's settings for our CSP (read from this meta tag): no eval (no `hx-on`, no `js:` values), no
 * indicator <style> of its own, no scripts run from swapped markup, requests to this site only,
 * and no copies of pages in localStorage (they hold CSRF tokens and, on some pages, secrets).
 */
const htmxConfig = JSON.stringify({
  allowEval: false,
  allowScriptTags: false,
  includeIndicatorStyles: false,
  selfRequestsOnly: true,
  historyEnabled: false,
  historyCacheSize: 0,
});

const navigation: readonly (readonly [string, PlainKey])[] = [
  ['/compose', 'nav.compose'],
  ['/settings', 'nav.settings'],
  ['/channels', 'nav.channels'],
  ['/calendar', 'nav.calendar'],
  ['/posts', 'nav.posts'],
  ['/media', 'nav.media'],
  ['/notifications', 'nav.notifications'],
  ['/webhooks', 'nav.webhooks'],
  ['/oauth-app', 'nav.oauthApp'],
  ['/approved-apps', 'nav.approvedApps'],
];

/** The hidden field every dashboard form carries (verified by api/dashboard/csrf.ts). */
export function csrfField(ctx: { state: DashboardState }): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrfToken(ctx)}">`;
}

function header(ctx: DashboardContext, account: SignedIn, t: Translate): SafeHtml {
  const pages = account.operator ? [...navigation, ['/admin/queues', 'nav.queues'] as const] : navigation;
  const links = pages.map(([path, label]) => {
    const current = ctx.path === path ? html` aria-current="page"` : '';
    return html`<li><a href="${path}"${current}>${t(label)}</a></li>`;
  });
  const options = account.organizations.map((organization) => html`<option value="${organization.id}"${organization.id === account.organization.id ? html` selected` : ''}>${organization.name}</option>`);
  return html`<header>
  <strong>${t('layout.brand')}</strong>
  <nav aria-label="${t('layout.navigation')}"><ul>${links}</ul></nav>
  <form method="post" action="/organizations/switch">
    ${csrfField(ctx)}
    <input type="hidden" name="return_to" value="${ctx.method === 'GET' ? ctx.originalUrl : '/settings'}">
    <label for="organization-switch" class="muted">${t('layout.currentOrganization')}</label>
    <select id="organization-switch" name="organization_id">${options}</select>
    <button type="submit">${t('layout.switch')}</button>
  </form>
  <span class="muted">${account.user.email}</span>
  <form method="post" action="/logout">${csrfField(ctx)}<button type="submit">${t('layout.logOut')}</button></form>
</header>`;
}

export interface PageOptions {
  title: string;
  body: SafeHtml;
  status?: number;
  /** The page uses the whole width of wide screens (the composer's two columns). */
  wide?: boolean;
  /** Scripts of the page's own islands, by asset name (api/dashboard/assets.ts). */
  scripts?: readonly string[];
  /**
   * An island that writes its own <style> element (FullCalendar): style-src also takes this page's
   * nonce, which the island reads from its script tag, so markup injected without it still cannot style.
   */
  styleNonce?: boolean;
  /** Messages the page's scripts show, handed to them in the page-words data block. */
  scriptWords?: readonly MessageKey[];
}

/**
 * The page's scripts' messages as JSON in a data block (never run, so the CSP has no say); `<` is
 * written as \u003c so no message can end the element early.
 */
function pageWords(t: Translate, keys: readonly MessageKey[]): SafeHtml {
  const entries = Object.fromEntries(['layout.copied' as const, ...keys].map((key) => [key, t.raw(key)]));
  const json = JSON.stringify(entries).replaceAll('<', '\\u003c');
  return new SafeHtml(`<script type="application/json" id="page-words">${json}</script>`);
}

/** Answers with a whole page; the header appears for a logged-in user. */
export function renderPage(ctx: DashboardContext, options: PageOptions): void {
  const nonce = randomBytes(16).toString('base64');
  const t = words(ctx);
  const account = ctx.state.signedIn;
  // Nonces let our scripts (the inline one, htmx, islands) run while any injected markup cannot; the
  // stylesheet is a file of this site, and htmx's requests may go to this site alone (connect-src).
  ctx.set('Content-Security-Policy', [
    "default-src 'none'", 'img-src http: https: data:',
    options.styleNonce === true ? `style-src 'self' 'nonce-${nonce}'` : "style-src 'self'",
    `script-src 'nonce-${nonce}'`,
    "connect-src 'self'", "base-uri 'none'", "frame-ancestors 'none'",
  ].join('; '));
  ctx.status = options.status ?? 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html`<!doctype html>
<html lang="${t.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t('layout.titleSuffix', { title: options.title })}</title>
<meta name="htmx-config" content="${htmxConfig}">
<link rel="stylesheet" href="${assetPath('dashboard.css')}">
<script nonce="${nonce}" src="${assetPath('htmx.min.js')}" defer></script>
<script nonce="${nonce}" src="${assetPath('page-words.js')}" defer></script>
<script nonce="${nonce}" src="${assetPath('copy-button.js')}" defer></script>
${(options.scripts ?? []).map((name) => html`<script nonce="${nonce}" src="${assetPath(name)}" defer></script>`)}
</head>
<body>
${account === undefined || ctx.state.csrfToken === undefined ? '' : header(ctx, account, t)}
<main${options.wide === true ? html` class="wide"` : ''}>
<h1>${options.title}</h1>
${options.body}
</main>
${pageWords(t, options.scriptWords ?? [])}
</body>
</html>`.markup;
}

/** Answers with a short page stating a problem (used for 4xx and 5xx pages). */
export function renderProblem(ctx: DashboardContext, status: number, title: string, message: string): void {
  const t = words(ctx);
  renderPage(ctx, {
    status,
    title,
    body: html`<p class="error" role="alert">${message}</p><p><a href="/">${t('layout.backToDashboard')}</a></p>`,
  });
}
