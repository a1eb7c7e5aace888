import type { Database } from '../../../shared/db/database.ts';
import type { ChannelView } from '../../../shared/domain/channels/channels.ts';
import { channelSchedule } from '../../../shared/domain/channels/channel-schedule.ts';
import { healthInWords, type ChannelHealth } from '../../../shared/domain/channels/channel-health.ts';
import type { PostingSchedule } from '../../../shared/domain/channels/posting-schedule.ts';
import { html, webUrl, type SafeHtml } from '../html.ts';
import { utcText } from '../posts/post-story-view.ts';

function tokenText(token: ChannelHealth['token']): SafeHtml {
  const expiry = token.expiresAt === null
    ? html`does not expire`
    : html`${token.expired ? 'expired' : 'expires'} ${utcText(token.expiresAt.toISOString())}`;
  const refreshed = token.lastRefreshedAt === null
    ? ''
    : html`; last renewed ${utcText(token.lastRefreshedAt.toISOString())}`;
  return html`${expiry}${token.renewable ? ', renewed by SPS' : ', not renewable'}${refreshed}`;
}

function scopesText(scopes: ChannelHealth['scopes']): SafeHtml {
  if (scopes.required === null) return html`<span class="muted">the platform has no permission scopes</span>`;
  const missing = scopes.missing === null || scopes.missing.length === 0
    ? ''
    : html`; <strong class="error-text">missing ${scopes.missing.join(', ')}</strong>`;
  return html`needs ${scopes.required.join(', ')}${missing}`;
}

function lastResult(last: ChannelHealth['lastPublish']): SafeHtml {
  if (last === null) return html`<span class="muted">nothing published yet</span>`;
  const release = webUrl(last.releaseURL);
  const error = last.error === null ? '' : html`: <span class="error-text">${last.error.message}</span>`;
  return html`<a href="/posts/${last.postId}">${last.state === 'PUBLISHED' ? 'published' : 'failed'}</a>
${utcText(last.at.toISOString())}${error}${release === null ? '' : html` (<a href="${release}">view</a>)`}`;
}

function rateLimitText(rate: ChannelHealth['rateLimit']): SafeHtml {
  if (!rate.limited || rate.until === null) return html`not limited`;
  return html`limited until ${utcText(rate.until.toISOString())}; ${rate.postsWaiting} posts wait for it`;
}

/**
 * A channel's health as GET /integrations/:id/health answers it, in words: token, scopes, last
 * result, rate limit and what to do, with its reconnect link and its time zone and queue slots.
 */
export function channelHealthDetails(channel: ChannelView, health: ChannelHealth, schedule: PostingSchedule): SafeHtml {
  const headingId = `health-${channel.id}`;
  const slots = schedule.postingSlots.length;
  const needsReconnect = health.actions.some((action) => action.code === 'reconnect' || action.code === 'grant_scope');
  return html`<section class="channel-health" aria-labelledby="${headingId}">
<h3 id="${headingId}">${channel.name}: ${healthInWords(health)}</h3>
<dl class="facts">
  <dt>What to do</dt>
  <dd><ul class="actions-list">${health.actions.map((action) => html`<li>${action.message}</li>`)}</ul></dd>
  <dt>Token</dt><dd>${tokenText(health.token)}</dd>
  <dt>Permissions</dt><dd>${scopesText(health.scopes)}</dd>
  <dt>Last result</dt><dd>${lastResult(health.lastPublish)}</dd>
  <dt>Rate limit</dt><dd>${rateLimitText(health.rateLimit)}</dd>
  <dt>Time zone</dt><dd>${schedule.timeZone}, ${slots} queue ${slots === 1 ? 'slot' : 'slots'} a week
    (<a href="/channels/${channel.id}/schedule" aria-label="Edit the posting schedule of ${channel.name}">edit</a>)</dd>
</dl>
${needsReconnect ? html`<p><a class="button" href="/channels/connect/${channel.identifier}?refresh=${channel.id}"
  aria-label="Reconnect ${channel.name} to fix this">Reconnect</a></p>` : ''}
</section>`;
}

/** Every channel's health details, each with its schedule as it counts now (channel-schedule.ts). */
export async function channelHealthSection(
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
    sections.push(channelHealthDetails(channel, health, await channelSchedule(db, organizationId, channel.id)));
  }
  return html`<h2>Health of each channel</h2>
<p class="muted">The same health GET /integrations/:id/health answers.</p>${sections}`;
}
