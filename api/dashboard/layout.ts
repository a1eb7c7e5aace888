import { randomBytes } from 'node:crypto';
import { assetPath } from './assets.ts';
import { html, SafeHtml } from './html.ts';
import { csrfToken, type DashboardContext, type DashboardState, type SignedIn } from './state.ts';

/** Copies the text of the element named by a button's data-copy attribute. */
const copyScript = `
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (button === null) return;
  const source = document.getElementById(button.getAttribute('data-copy') || '');
  if (source === null || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent || '').then(() => { button.textContent = 'Copied'; });
});
`;

// Our own constant: trusted text that must reach the page as is, not entity-escaped.
const trustedScript = new SafeHtml(copyScript);

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

const navigation = [
  ['/compose', 'Compose'],
  ['/settings', 'Settings'],
  ['/channels', 'Channels'],
  ['/calendar', 'Calendar'],
  ['/posts', 'Posts'],
  ['/media', 'Media'],
  ['/notifications', 'Notifications'],
  ['/webhooks', 'Webhooks'],
  ['/oauth-app', 'OAuth app'],
  ['/approved-apps', 'Approved apps'],
] as const;

/** The hidden field every dashboard form carries (verified by api/dashboard/csrf.ts). */
export function csrfField(ctx: { state: DashboardState }): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrfToken(ctx)}">`;
}

function header(ctx: DashboardContext, account: SignedIn): SafeHtml {
  const pages = account.operator ? [...navigation, ['/admin/queues', 'Queues'] as const] : navigation;
  const links = pages.map(([path, label]) => {
    const current = ctx.path === path ? html` aria-current="page"` : '';
    return html`<li><a href="${path}"${current}>${label}</a></li>`;
  });
  const options = account.organizations.map((organization) => html`<option value="${organization.id}"${organization.id === account.organization.id ? html` selected` : ''}>${organization.name}</option>`);
  return html`<header>
  <strong>SPS</strong>
  <nav aria-label="Dashboard"><ul>${links}</ul></nav>
  <form method="post" action="/organizations/switch">
    ${csrfField(ctx)}
    <input type="hidden" name="return_to" value="${ctx.method === 'GET' ? ctx.originalUrl : '/settings'}">
    <label for="organization-switch" class="muted">Current organization</label>
    <select id="organization-switch" name="organization_id">${options}</select>
    <button type="submit">Switch</button>
  </form>
  <span class="muted">${account.user.email}</span>
  <form method="post" action="/logout">${csrfField(ctx)}<button type="submit">Log out</button></form>
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
}

/** Answers with a whole page; the header appears for a logged-in user. */
export function renderPage(ctx: DashboardContext, options: PageOptions): void {
  const nonce = randomBytes(16).toString('base64');
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
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · SPS</title>
<meta name="htmx-config" content="${htmxConfig}">
<link rel="stylesheet" href="${assetPath('dashboard.css')}">
<script nonce="${nonce}" src="${assetPath('htmx.min.js')}" defer></script>
${(options.scripts ?? []).map((name) => html`<script nonce="${nonce}" src="${assetPath(name)}" defer></script>`)}
</head>
<body>
${account === undefined || ctx.state.csrfToken === undefined ? '' : header(ctx, account)}
<main${options.wide === true ? html` class="wide"` : ''}>
<h1>${options.title}</h1>
${options.body}
</main>
<script nonce="${nonce}">${trustedScript}</script>
</body>
</html>`.markup;
}

/** Answers with a short page stating a problem (used for 4xx and 5xx pages). */
export function renderProblem(ctx: DashboardContext, status: number, title: string, message: string): void {
  renderPage(ctx, { status, title, body: html`<p class="error" role="alert">${message}</p><p><a href="/">Back to the dashboard</a></p>` });
}
