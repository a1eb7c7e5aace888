import type { Database } from '../../../shared/db/database.ts';
import type { ChannelView } from '../../../shared/domain/channels/channels.ts';
import { channelSchedule } from '../../../shared/domain/channels/channel-schedule.ts';
import type { ChannelHealth, HealthStatus } from '../../../shared/domain/channels/channel-health.ts';
import type { PostingSchedule } from '../../../shared/domain/channels/posting-schedule.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import type { PlainKey, Translate } from '../i18n/translate.ts';
import { utcText } from '../posts/post-story-view.ts';

/** The dashboard's word for each health status; a rate limit with a known end says until when. */
const statusWords: Record<HealthStatus, PlainKey> = {
  healthy: 'health.healthy',
  disabled: 'health.disabled',
  needs_reconnect: 'health.needsReconnect',
  needs_scope: 'health.needsScope',
  rate_limited: 'health.rateLimited',
};

/** The channel's health in a few words, as the channel list and its details show it. */
export function healthLabel(t: Translate, health: ChannelHealth): string {
  const until = health.rateLimit.until;
  if (health.status === 'rate_limited' && until !== null) {
    return t('health.rateLimitedUntil', { time: until.toISOString().slice(11, 16) });
  }
  return t(statusWords[health.status]);
}

/** The token's facts as a list of short clauses: when it expires, whether SPS renews it, when it last did. */
function tokenText(t: Translate, token: ChannelHealth['token']): SafeHtml {
  const expiry = token.expiresAt === null
    ? t('health.tokenNeverExpires')
    : t.markup(token.expired ? 'health.tokenExpired' : 'health.tokenExpires',
      { time: utcText(token.expiresAt.toISOString()) });
  const refreshed = token.lastRefreshedAt === null
    ? ''
    : html`; ${t.markup('health.tokenLastRenewed', { time: utcText(token.lastRefreshedAt.toISOString()) })}`;
  return html`${expiry}, ${t(token.renewable ? 'health.tokenRenewed' : 'health.tokenNotRenewable')}${refreshed}`;
}

function scopesText(t: Translate, scopes: ChannelHealth['scopes']): SafeHtml {
  if (scopes.required === null) return html`<span class="muted">${t('health.noScopes')}</span>`;
  const missing = scopes.missing === null || scopes.missing.length === 0
    ? ''
    : html`; <strong class="error-text">${t('health.scopesMissing', { scopes: scopes.missing.join(', ') })}</strong>`;
  return html`${t('health.scopesNeeded', { scopes: scopes.required.join(', ') })}${missing}`;
}

function lastResult(t: Translate, last: ChannelHealth['lastPublish']): SafeHtml {
  if (last === null) return html`<span class="muted">${t('health.nothingPublished')}</span>`;
  const release = webUrl(last.releaseURL);
  const error = last.error === null ? '' : html`: <span class="error-text">${last.error.message}</span>`;
  const outcome = t(last.state === 'PUBLISHED' ? 'health.published' : 'health.failed');
  const view = release === null ? '' : html` (<a href="${release}">${t('health.view')}</a>)`;
  return html`<a href="/posts/${last.postId}">${outcome}</a>
${utcText(last.at.toISOString())}${error}${view}`;
}

function rateLimitText(t: Translate, rate: ChannelHealth['rateLimit']): SafeHtml {
  if (!rate.limited || rate.until === null) return html`${t('health.notLimited')}`;
  return t.markup('health.limitedUntil', {
    time: utcText(rate.until.toISOString()),
    waiting: t.count('health.postsWaiting', rate.postsWaiting),
  });
}

/**
 * A channel's health as GET /integrations/:id/health answers it, in words: token, scopes, last
 * result, rate limit and what to do, with its reconnect link and its time zone and queue slots.
 * The actions' messages are the domain's own, shown as it writes them.
 */
export function channelHealthDetails(
  t: Translate, channel: ChannelView, health: ChannelHealth, schedule: PostingSchedule,
): SafeHtml {
  const headingId = `health-${channel.id}`;
  const slots = schedule.postingSlots.length;
  const needsReconnect = health.actions.some((action) => action.code === 'reconnect' || action.code === 'grant_scope');
  const editLabel = t('health.editScheduleOf', { name: channel.name });
  return html`<section class="channel-health" aria-labelledby="${headingId}">
<h3 id="${headingId}">${channel.name}: ${healthLabel(t, health)}</h3>
<dl class="facts">
  <dt>${t('health.whatToDo')}</dt>
  <dd><ul class="actions-list">${health.actions.map((action) => html`<li>${action.message}</li>`)}</ul></dd>
  <dt>${t('health.token')}</dt><dd>${tokenText(t, health.token)}</dd>
  <dt>${t('health.permissions')}</dt><dd>${scopesText(t, health.scopes)}</dd>
  <dt>${t('health.lastResult')}</dt><dd>${lastResult(t, health.lastPublish)}</dd>
  <dt>${t('health.rateLimit')}</dt><dd>${rateLimitText(t, health.rateLimit)}</dd>
  <dt>${t('health.timeZone')}</dt><dd>${t.count('health.queueSlots', slots, { zone: schedule.timeZone })}
    (<a href="/channels/${channel.id}/schedule" aria-label="${editLabel}">${t('health.edit')}</a>)</dd>
</dl>
${needsReconnect ? html`<p><a class="button" href="/channels/connect/${channel.identifier}?refresh=${channel.id}"
  aria-label="${t('health.reconnectToFix', { name: channel.name })}">${t('health.reconnect')}</a></p>` : ''}
</section>`;
}

/** Every channel's health details, each with its schedule as it counts now (channel-schedule.ts). */
export async function channelHealthSection(
  t: Translate,
  db: Database,
  organizationId: string,
  channels: readonly ChannelView[],
  healths: ReadonlyMap<string, ChannelHealth>,
): Promise<SafeHtml> {
  if (channels.length === 0) return html``;
  const sections: SafeHtml[] = [];
  // One channel after the other, as their healths were read: a list is a few channels.
  for (const channel of channels) {
    const health = healths.get(channel.id);
    if (health === undefined) continue;
    sections.push(channelHealthDetails(t, channel, health, await channelSchedule(db, organizationId, channel.id)));
  }
  return html`<h2>${t('health.title')}</h2>
<p class="muted">${t('health.sameAsApi', { endpoint: 'GET /integrations/:id/health' })}</p>${sections}`;
}
