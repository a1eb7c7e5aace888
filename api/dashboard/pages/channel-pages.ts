import type Router from '@koa/router';
import { deleteChannel, listChannels, type ChannelView } from '../../../shared/domain/channels/channels.ts';
import type { PlatformModule } from '../../../shared/platforms/kit/platform-module.ts';
import { allPlatformModules, platformDisplayName } from '../../../shared/platforms/platforms.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { csrfField, renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';
import { connectBlocker } from './connect-pages.ts';
import { analyticsChart } from '../analytics-chart.ts';
import { channelCharts } from '../../../shared/domain/analytics/channel-charts.ts';
import type { ChannelHealth } from '../../../shared/domain/channels/channel-health.ts';
import { healthOfListedChannels } from '../../../shared/domain/channels/channel-health-reads.ts';
import { channelHealthSection, healthLabel } from '../channels/channel-health-view.ts';
import { words, type Translate } from '../i18n/translate.ts';

/** The channel's health in a word, with its first action's message for those who hover or read aloud. */
function channelStatus(t: Translate, health: ChannelHealth | undefined): SafeHtml {
  if (health === undefined) return html`<span class="muted">${t('channels.statusUnknown')}</span>`;
  const first = health.actions[0];
  return html`<span title="${first?.message ?? ''}">${healthLabel(t, health)}</span>`;
}

function channelRow(
  ctx: DashboardRouterContext, channel: ChannelView, chart: SafeHtml | null, health: ChannelHealth | undefined,
): SafeHtml {
  const picture = webUrl(channel.picture);
  const t = words(ctx);
  const { name } = channel;
  return html`<tr>
  <td>${picture === null ? '' : html`<img src="${picture}" alt="" width="24" height="24"> `}${channel.name}${channel.profile === null ? '' : html` <span class="muted">${channel.profile}</span>`}</td>
  <td>${platformDisplayName(channel.identifier)}</td>
  <td>${channel.customer?.name ?? ''}</td>
  <td>${channelStatus(t, health)}</td>
  <td>${chart ?? html`<span class="muted">${t('channels.noChartYet')}</span>`}</td>
  <td><a href="/channels/${channel.id}/schedule"
    aria-label="${t('channels.scheduleOf', { name })}">${t('channels.schedule')}</a>
  <a href="/channels/connect/${channel.identifier}?refresh=${channel.id}"
    aria-label="${t('channels.reconnectChannel', { name })}">${t('channels.reconnect')}</a>
  <form method="post" action="/channels/${channel.id}/disconnect" class="inline">${csrfField(ctx)}
    <button type="submit" class="danger"
      aria-label="${t('channels.disconnectChannel', { name })}">${t('channels.disconnect')}</button></form></td>
</tr>`;
}

function connectButton(t: Translate, deps: DashboardDeps, module: PlatformModule): SafeHtml {
  const { identifier, displayName } = module.definition;
  const blocker = connectBlocker(t, deps, module);
  const href = `/channels/connect/${identifier}`;
  const label = t('connect.connectPlatform', { platform: displayName });
  if (blocker === null) return html`<li><a class="button" href="${href}">${label}</a></li>`;
  return html`<li><a class="button disabled" href="${href}" aria-disabled="true">${label}</a>
<span class="muted">${blocker}</span></li>`;
}

export function registerChannelPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/channels', requireSignIn(), async (ctx) => {
    const channels = await listChannels(deps.db, signedIn(ctx).organization.id);
    // One chart per channel: its first counter (followers, usually) over the last 30 days.
    const charts = await channelCharts(deps.db, channels.map((channel) => channel.id), deps.now(), 30);
    const healths = await healthOfListedChannels(deps, signedIn(ctx).organization.id, channels);
    const t = words(ctx);
    const table = channels.length === 0
      ? html`<p>${t('channels.none')}</p>`
      : html`<div class="table-scroll" tabindex="0"><table><caption class="muted">${t('channels.caption')}</caption>
<thead><tr><th scope="col">${t('channels.channel')}</th><th scope="col">${t('channels.platform')}</th>
<th scope="col">${t('channels.customer')}</th>
<th scope="col">${t('channels.status')}</th><th scope="col">${t('channels.last30Days')}</th>
<th scope="col"><span class="muted">${t('channels.action')}</span></th></tr></thead>
<tbody>${channels.map((channel) => {
    const series = charts.get(channel.id);
    return channelRow(ctx, channel, series === undefined ? null : analyticsChart(series), healths.get(channel.id));
  })}</tbody></table></div>
<p class="muted">${t('channels.disconnectDeletes')}</p>`;
    const buttons = allPlatformModules().map((module) => connectButton(t, deps, module));
    const connect = html`<h2>${t('channels.connectHeading')}</h2><ul class="connect">${buttons}</ul>`;
    const details = await channelHealthSection(t, deps.db, signedIn(ctx).organization.id, channels, healths);
    renderPage(ctx, { title: t('channels.title'), body: html`${table}${details}${connect}` });
  });

  router.post('/channels/:id/disconnect', requireSignIn(), async (ctx) => {
    await deleteChannel(deps, signedIn(ctx).organization.id, ctx.params.id ?? '');
    ctx.redirect('/channels');
  });
}
