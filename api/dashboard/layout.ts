import { randomBytes } from 'node:crypto';
import { html, SafeHtml } from './html.ts';
import { csrfToken, type DashboardContext, type DashboardState, type SignedIn } from './state.ts';

const stylesheet = `
:root { color-scheme: light dark; --accent: #2457c5; --danger: #b3261e; --muted: #666; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; }
header { display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; align-items: center; padding: .75rem 1.5rem; border-bottom: 1px solid #8884; }
header nav ul { display: flex; flex-wrap: wrap; gap: 1rem; list-style: none; margin: 0; padding: 0; }
header form { display: flex; gap: .5rem; align-items: center; margin: 0; }
header label { margin: 0; font-weight: normal; }
header select { width: auto; }
main { max-width: 60rem; padding: 1rem 1.5rem 3rem; }
a { color: var(--accent); }
a[aria-current="page"] { font-weight: bold; }
label { display: block; margin: .75rem 0 .25rem; font-weight: 600; }
input, select, textarea { font: inherit; padding: .4rem; width: 100%; max-width: 30rem; }
input[type="date"] { width: auto; }
button { font: inherit; padding: .4rem .9rem; cursor: pointer; }
button.danger { background: var(--danger); color: #fff; border: 1px solid var(--danger); }
button.primary { background: var(--accent); color: #fff; border: 1px solid var(--accent); }
.inline { display: inline; }
a.button { display: inline-block; padding: .4rem .9rem; border: 1px solid var(--accent); border-radius: 4px; }
a.button { text-decoration: none; }
a.button.disabled { border-color: var(--muted); color: var(--muted); }
ul.connect { list-style: none; padding: 0; display: grid; gap: .5rem; }
ul.connect { grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); }
ul.choices { list-style: none; padding: 0; }
ul.choices label { font-weight: normal; display: flex; gap: .5rem; align-items: center; }
ul.choices input { width: auto; }
.notice { padding: .75rem 1rem; border-left: 4px solid var(--accent); background: #2457c514; }
.error { padding: .75rem 1rem; border-left: 4px solid var(--danger); background: #b3261e14; }
.secret { font-family: ui-monospace, monospace; word-break: break-all; padding: .25rem .5rem; background: #8882; }
.muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #8884; vertical-align: top; }
.consent-app { display: flex; gap: 1rem; align-items: center; }
.consent-app h2 { margin: 0; }
.app-picture { width: 64px; height: 64px; object-fit: cover; border-radius: 8px; }
`;

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

// Our own constants: trusted text that must reach the page as is, not entity-escaped.
const trustedStylesheet = new SafeHtml(stylesheet);
const trustedScript = new SafeHtml(copyScript);

const navigation = [
  ['/settings', 'Settings'],
  ['/channels', 'Channels'],
  ['/posts', 'Posts'],
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
}

/** Answers with a whole page; the header appears for a logged-in user. */
export function renderPage(ctx: DashboardContext, options: PageOptions): void {
  const nonce = randomBytes(16).toString('base64');
  const account = ctx.state.signedIn;
  // Nonces let the one inline stylesheet and script run while any injected markup cannot.
  ctx.set('Content-Security-Policy', `default-src 'none'; img-src http: https: data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`);
  ctx.status = options.status ?? 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · SPS</title>
<style nonce="${nonce}">${trustedStylesheet}</style>
</head>
<body>
${account === undefined || ctx.state.csrfToken === undefined ? '' : header(ctx, account)}
<main>
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
