import type Router from '@koa/router';
import {
  deliveryLogLimits, listDeliveries, resendDelivery, type DeliveryView,
} from '../../../shared/domain/webhooks/webhook-deliveries.ts';
import type { WebhookDeliveryStatus } from '../../../shared/db/models/webhook-delivery.ts';
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
import { words, type PlainKey, type Translate } from '../i18n/translate.ts';
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

/** A delivery's state as the log shows it (the stored value stays English: it is the API's). */
const statusWords: Record<WebhookDeliveryStatus, PlainKey> = {
  pending: 'webhooks.statusPending',
  sending: 'webhooks.statusSending',
  delivered: 'webhooks.statusDelivered',
  failed: 'webhooks.statusFailed',
};

function secretBlock(t: Translate, value: string): SafeHtml {
  const secret = html`<code id="webhook-secret" class="secret">${value}</code>`;
  return html`<p class="notice" role="status">${t('webhooks.copySecretNow')}</p>
<p>${t.markup('webhooks.signingSecret', { secret })}
<button type="button" data-copy="webhook-secret">${t('webhooks.copy')}</button></p>`;
}

function endpointRow(ctx: DashboardRouterContext, endpoint: EndpointView, view: ListView): SafeHtml {
  const t = words(ctx);
  const secret = view.secret?.endpointId === endpoint.id ? secretBlock(t, view.secret.value) : '';
  return html`<tr>
<td><a href="/webhooks/${endpoint.id}"><code>${endpoint.url}</code></a>${secret}</td>
<td>${endpoint.events.join(', ')}</td>
<td><time datetime="${endpoint.createdAt}">${shortTime(endpoint.createdAt)}</time></td>
<td><a href="/webhooks/${endpoint.id}">${t('webhooks.deliveryLog')}</a>
<form method="post" action="/webhooks/${endpoint.id}/rotate" class="inline">${csrfField(ctx)}
<button type="submit">${t('webhooks.rotateSecret')}</button></form>
<form method="post" action="/webhooks/${endpoint.id}/delete" class="inline">${csrfField(ctx)}
<button type="submit" class="danger">${t('webhooks.delete')}</button></form></td>
</tr>`;
}

function addForm(ctx: DashboardRouterContext, typed: ListView['typed']): SafeHtml {
  const t = words(ctx);
  const checked = new Set(typed?.events ?? []);
  const choices = webhookEventTypes.map((type) => html`<li><label>
<input type="checkbox" name="events" value="${type}"${checked.has(type) ? html` checked` : ''}>
<code>${type}</code> <span class="muted">${webhookEventDescriptions[type]}</span></label></li>`);
  return html`<form method="post" action="/webhooks">${csrfField(ctx)}
<label for="webhook-url">${t('webhooks.endpointUrl')}</label>
<input id="webhook-url" name="url" type="url" required maxlength="2048" value="${typed?.url ?? ''}"
 aria-describedby="webhook-url-hint">
<p id="webhook-url-hint" class="muted">${t('webhooks.endpointUrlHint')}</p>
<fieldset><legend>${t('webhooks.events')}</legend><ul class="choices">${choices}</ul></fieldset>
<p><button type="submit" class="primary">${t('webhooks.addEndpoint')}</button></p>
</form>`;
}

async function listPage(
  ctx: DashboardRouterContext,
  deps: DashboardDeps,
  view: ListView,
  status = 200,
): Promise<void> {
  const t = words(ctx);
  const endpoints = await listEndpoints(deps.db, signedIn(ctx).organization.id);
  const table = endpoints.length === 0
    ? html`<p>${t('webhooks.noEndpoints')}</p>`
    : html`<div class="table-scroll" tabindex="0">
<table><thead><tr><th>${t('webhooks.url')}</th><th>${t('webhooks.events')}</th><th>${t('webhooks.added')}</th><th></th>
</tr></thead>
<tbody>${endpoints.map((endpoint) => endpointRow(ctx, endpoint, view))}</tbody>
</table></div>`;
  renderPage(ctx, {
    status,
    title: t('webhooks.title'),
    body: html`${messages(view)}
<p>${t('webhooks.intro')}</p>
<section aria-labelledby="endpoints-heading"><h2 id="endpoints-heading">${t('webhooks.endpoints')}</h2>
${table}</section>
<section aria-labelledby="add-heading"><h2 id="add-heading">${t('webhooks.addHeading')}</h2>
<p class="muted">${t('webhooks.limit', { max: maxEndpointsPerOrganization })}</p>
${addForm(ctx, view.typed)}</section>`,
  });
}

/** One attempt's outcome: the receiver's status (or none) and, when measured, how long it took. */
function attemptOutcome(t: Translate, attempt: DeliveryView['attempts'][number]): string {
  const { statusCode: code, durationMs: ms } = attempt;
  if (code === null) return ms === null ? t('webhooks.noAnswer') : t('webhooks.noAnswerIn', { ms });
  return ms === null ? t('webhooks.httpStatus', { code }) : t('webhooks.httpStatusIn', { code, ms });
}

function attemptList(t: Translate, delivery: DeliveryView): SafeHtml {
  if (delivery.attempts.length === 0) return html`<span class="muted">${t('webhooks.noAttempts')}</span>`;
  return html`<ol>${delivery.attempts.map((attempt) => {
    const error = attempt.error === null ? '' : html`<br><span class="muted">${attempt.error}</span>`;
    // The receiver's own words (at most 500 characters) are often what explains a refusal.
    const answer = attempt.response === null ? '' : html`<br><code class="muted">${attempt.response}</code>`;
    const time = html`<time datetime="${attempt.at}">${shortTime(attempt.at)}</time>`;
    return html`<li>${time}: ${attemptOutcome(t, attempt)}${error}${answer}</li>`;
  })}</ol>`;
}

function deliveryRow(ctx: DashboardRouterContext, delivery: DeliveryView): SafeHtml {
  const t = words(ctx);
  const last = delivery.attempts.at(-1);
  const next = delivery.nextAttemptAt === null
    ? ''
    : html`<br><span class="muted">${t('webhooks.nextAttempt', { time: shortTime(delivery.nextAttemptAt) })}</span>`;
  const resent = delivery.resentFrom === null ? '' : html`<br><span class="muted">${t('webhooks.resent')}</span>`;
  return html`<tr>
<td><code>${delivery.event}</code>${resent}</td>
<td>${t(statusWords[delivery.status])}${next}</td>
<td>${last?.statusCode ?? '—'}</td>
<td>${last?.durationMs === null || last === undefined ? '—' : `${last.durationMs} ms`}</td>
<td>${attemptList(t, delivery)}</td>
<td><time datetime="${delivery.createdAt}">${shortTime(delivery.createdAt)}</time></td>
<td><form method="post" action="/webhooks/deliveries/${delivery.id}/resend">${csrfField(ctx)}
<button type="submit">${t('webhooks.resend')}</button></form></td>
</tr>`;
}

export function registerWebhookPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/webhooks', requireSignIn(), async (ctx) => {
    await listPage(ctx, deps, ctx.query.deleted === '1' ? { notice: words(ctx)('webhooks.deleted') } : {});
  });

  router.post('/webhooks', requireSignIn(), async (ctx) => {
    const typed = { url: formField(ctx, 'url'), events: formValues(ctx, 'events') };
    try {
      const { endpoint, secret } = await registerEndpoint(deps, signedIn(ctx).organization.id, typed);
      const notice = words(ctx)('webhooks.endpointAdded');
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
    const notice = words(ctx)('webhooks.secretRotated');
    await listPage(ctx, deps, { notice, secret: { endpointId: endpoint.id, value: secret } });
  });

  router.post('/webhooks/:id/delete', requireSignIn(), async (ctx) => {
    await deleteEndpoint(deps, signedIn(ctx).organization.id, ctx.params.id ?? '');
    ctx.redirect('/webhooks?deleted=1');
  });

  router.get('/webhooks/:id', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const endpoint = await findOwnedEndpoint(deps.db, organizationId, ctx.params.id ?? '');
    const deliveries = await listDeliveries(deps.db, organizationId, endpoint._id.toString(), deliveryLogLimits.max);
    const t = words(ctx);
    const headings = html`<th>${t('webhooks.event')}</th><th>${t('webhooks.status')}</th>
<th>${t('webhooks.statusCode')}</th><th>${t('webhooks.duration')}</th><th>${t('webhooks.attempts')}</th>
<th>${t('webhooks.time')}</th><th></th>`;
    const log = deliveries.length === 0
      ? html`<p>${t('webhooks.noDeliveries')}</p>`
      : html`<div class="table-scroll" tabindex="0">
<table><thead><tr>${headings}</tr></thead><tbody>${deliveries.map((delivery) => deliveryRow(ctx, delivery))}</tbody>
</table></div>`;
    const endpointUrl = html`<code>${endpoint.url}</code>`;
    renderPage(ctx, {
      title: t('webhooks.deliveriesTitle'),
      body: html`${messages(ctx.query.resent === '1' ? { notice: t('webhooks.requeued') } : {})}
<p>${t.markup('webhooks.endpointFor', { url: endpointUrl, events: endpoint.events.join(', ') })}</p>
<p class="muted">${t('webhooks.latestDeliveries', { max: deliveryLogLimits.max })}
<a href="/webhooks">${t('webhooks.allEndpoints')}</a></p>
${log}`,
    });
  });

  router.post('/webhooks/deliveries/:id/resend', requireSignIn(), async (ctx) => {
    const resending = { db: deps.db, deliveryJobs: deps.webhookDeliveries, logger: ctx.state.log };
    const copy = await resendDelivery(resending, signedIn(ctx).organization.id, ctx.params.id ?? '', deps.now());
    ctx.redirect(`/webhooks/${copy.endpointId}?resent=1`);
  });
}
