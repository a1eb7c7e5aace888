import type Router from '@koa/router';
import {
  deliveryLogLimits, listDeliveries, resendDelivery, type DeliveryView,
} from '../../../shared/domain/webhooks/webhook-deliveries.ts';
import {
  deleteEndpoint, findOwnedEndpoint, listEndpoints, maxEndpointsPerOrganization, registerEndpoint,
  rotateEndpointSecret, type EndpointView,
} from '../../../shared/domain/webhooks/webhook-endpoints.ts';
import { webhookEventDescriptions, webhookEventTypes } from '../../../shared/domain/webhooks/webhook-events.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { formField, formValues } from '../form-body.ts';
import { html, type SafeHtml } from '../html.ts';
import { sentence } from '../html-errors.ts';
import { csrfField, renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

interface ListView {
  notice?: string;
  problem?: string;
  /** An endpoint's secret in clear, right after it was made or rotated: the only time it is shown. */
  secret?: { endpointId: string; value: string };
  /** What the user typed, shown again when the form was refused. */
  typed?: { url: string; events: string[] };
}

function messages(view: { notice?: string | undefined; problem?: string | undefined }): SafeHtml {
  const problem = view.problem === undefined ? '' : html`<p class="error" role="alert">${view.problem}</p>`;
  const notice = view.notice === undefined ? '' : html`<p class="notice" role="status">${view.notice}</p>`;
  return html`${problem}${notice}`;
}

const shortTime = (iso: string): string => `${iso.replace('T', ' ').slice(0, 19)} UTC`;

function secretBlock(value: string): SafeHtml {
  return html`<p class="notice" role="status">Copy the signing secret now: it will not be shown again.</p>
<p>Signing secret: <code id="webhook-secret" class="secret">${value}</code>
<button type="button" data-copy="webhook-secret">Copy</button></p>`;
}

function endpointRow(ctx: DashboardRouterContext, endpoint: EndpointView, view: ListView): SafeHtml {
  const secret = view.secret?.endpointId === endpoint.id ? secretBlock(view.secret.value) : '';
  return html`<tr>
<td><a href="/webhooks/${endpoint.id}"><code>${endpoint.url}</code></a>${secret}</td>
<td>${endpoint.events.join(', ')}</td>
<td><time datetime="${endpoint.createdAt}">${shortTime(endpoint.createdAt)}</time></td>
<td><a href="/webhooks/${endpoint.id}">Delivery log</a>
<form method="post" action="/webhooks/${endpoint.id}/rotate" class="inline">${csrfField(ctx)}
<button type="submit">Rotate secret</button></form>
<form method="post" action="/webhooks/${endpoint.id}/delete" class="inline">${csrfField(ctx)}
<button type="submit" class="danger">Delete</button></form></td>
</tr>`;
}

function addForm(ctx: DashboardRouterContext, typed: ListView['typed']): SafeHtml {
  const checked = new Set(typed?.events ?? []);
  const choices = webhookEventTypes.map((type) => html`<li><label>
<input type="checkbox" name="events" value="${type}"${checked.has(type) ? html` checked` : ''}>
<code>${type}</code> <span class="muted">${webhookEventDescriptions[type]}</span></label></li>`);
  return html`<form method="post" action="/webhooks">${csrfField(ctx)}
<label for="webhook-url">Endpoint URL</label>
<input id="webhook-url" name="url" type="url" required maxlength="2048" value="${typed?.url ?? ''}"
 aria-describedby="webhook-url-hint">
<p id="webhook-url-hint" class="muted">Deliveries are POSTed here as JSON, signed (see docs/api.md, "Webhooks").</p>
<fieldset><legend>Events</legend><ul class="choices">${choices}</ul></fieldset>
<p><button type="submit" class="primary">Add endpoint</button></p>
</form>`;
}

async function listPage(
  ctx: DashboardRouterContext,
  deps: DashboardDeps,
  view: ListView,
  status = 200,
): Promise<void> {
  const endpoints = await listEndpoints(deps.db, signedIn(ctx).organization.id);
  const table = endpoints.length === 0
    ? html`<p>No endpoints yet.</p>`
    : html`<div class="table-scroll" tabindex="0">
<table><thead><tr><th>URL</th><th>Events</th><th>Added</th><th></th></tr></thead>
<tbody>${endpoints.map((endpoint) => endpointRow(ctx, endpoint, view))}</tbody>
</table></div>`;
  renderPage(ctx, {
    status,
    title: 'Webhooks',
    body: html`${messages(view)}
<p>SPS tells these endpoints about the events they chose, signing each delivery with the endpoint's secret and
retrying for hours until it answers 2xx.</p>
<section aria-labelledby="endpoints-heading"><h2 id="endpoints-heading">Endpoints</h2>${table}</section>
<section aria-labelledby="add-heading"><h2 id="add-heading">Add an endpoint</h2>
<p class="muted">Up to ${maxEndpointsPerOrganization} endpoints per organization.</p>
${addForm(ctx, view.typed)}</section>`,
  });
}

function attemptList(delivery: DeliveryView): SafeHtml {
  if (delivery.attempts.length === 0) return html`<span class="muted">none yet</span>`;
  return html`<ol>${delivery.attempts.map((attempt) => {
    const code = attempt.statusCode === null ? 'no answer' : `HTTP ${attempt.statusCode}`;
    const duration = attempt.durationMs === null ? '' : ` in ${attempt.durationMs} ms`;
    const error = attempt.error === null ? '' : html`<br><span class="muted">${attempt.error}</span>`;
    // The receiver's own words (at most 500 characters) are often what explains a refusal.
    const answer = attempt.response === null ? '' : html`<br><code class="muted">${attempt.response}</code>`;
    const time = html`<time datetime="${attempt.at}">${shortTime(attempt.at)}</time>`;
    return html`<li>${time}: ${code}${duration}${error}${answer}</li>`;
  })}</ol>`;
}

function deliveryRow(ctx: DashboardRouterContext, delivery: DeliveryView): SafeHtml {
  const last = delivery.attempts.at(-1);
  const next = delivery.nextAttemptAt === null
    ? ''
    : html`<br><span class="muted">next ${shortTime(delivery.nextAttemptAt)}</span>`;
  const resent = delivery.resentFrom === null ? '' : html`<br><span class="muted">resent</span>`;
  return html`<tr>
<td><code>${delivery.event}</code>${resent}</td>
<td>${delivery.status}${next}</td>
<td>${last?.statusCode ?? '—'}</td>
<td>${last?.durationMs === null || last === undefined ? '—' : `${last.durationMs} ms`}</td>
<td>${attemptList(delivery)}</td>
<td><time datetime="${delivery.createdAt}">${shortTime(delivery.createdAt)}</time></td>
<td><form method="post" action="/webhooks/deliveries/${delivery.id}/resend">${csrfField(ctx)}
<button type="submit">Resend</button></form></td>
</tr>`;
}

export function registerWebhookPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/webhooks', requireSignIn(), async (ctx) => {
    await listPage(ctx, deps, ctx.query.deleted === '1' ? { notice: 'The endpoint was deleted.' } : {});
  });

  router.post('/webhooks', requireSignIn(), async (ctx) => {
    const typed = { url: formField(ctx, 'url'), events: formValues(ctx, 'events') };
    try {
      const { endpoint, secret } = await registerEndpoint(deps, signedIn(ctx).organization.id, typed);
      const notice = 'The endpoint was added.';
      await listPage(ctx, deps, { notice, secret: { endpointId: endpoint.id, value: secret } }, 201);
    } catch (error) {
      // A refused form is shown again with its values; anything other than bad input propagates.
      if (!(error instanceof DomainError) || error.status >= 500) throw error;
      await listPage(ctx, deps, { typed, problem: sentence(error.message) }, error.status);
    }
  });

  router.post('/webhooks/:id/rotate', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const { endpoint, secret } = await rotateEndpointSecret(deps, organizationId, ctx.params.id ?? '');
    const notice = 'A new signing secret was made: every delivery from now on, retries included, is signed with it.';
    await listPage(ctx, deps, { notice, secret: { endpointId: endpoint.id, value: secret } });
  });

  router.post('/webhooks/:id/delete', requireSignIn(), async (ctx) => {
    await deleteEndpoint(deps.db, signedIn(ctx).organization.id, ctx.params.id ?? '');
    ctx.redirect('/webhooks?deleted=1');
  });

  router.get('/webhooks/:id', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const endpoint = await findOwnedEndpoint(deps.db, organizationId, ctx.params.id ?? '');
    const deliveries = await listDeliveries(deps.db, organizationId, endpoint._id.toString(), deliveryLogLimits.max);
    const log = deliveries.length === 0
      ? html`<p>No deliveries yet.</p>`
      : html`<div class="table-scroll" tabindex="0">
<table><thead><tr><th>Event</th><th>Status</th><th>Status code</th><th>Duration</th><th>Attempts</th>
<th>Time</th><th></th></tr></thead><tbody>${deliveries.map((delivery) => deliveryRow(ctx, delivery))}</tbody>
</table></div>`;
    renderPage(ctx, {
      title: 'Webhook deliveries',
      body: html`${messages(ctx.query.resent === '1' ? { notice: 'The delivery was queued again.' } : {})}
<p>Endpoint <code>${endpoint.url}</code>, for ${endpoint.events.join(', ')}.</p>
<p class="muted">The latest ${deliveryLogLimits.max} deliveries, newest first.
<a href="/webhooks">All endpoints</a></p>
${log}`,
    });
  });

  router.post('/webhooks/deliveries/:id/resend', requireSignIn(), async (ctx) => {
    const resending = { db: deps.db, deliveryJobs: deps.webhookDeliveries, logger: ctx.state.log };
    const copy = await resendDelivery(resending, signedIn(ctx).organization.id, ctx.params.id ?? '', deps.now());
    ctx.redirect(`/webhooks/${copy.endpointId}?resent=1`);
  });
}
