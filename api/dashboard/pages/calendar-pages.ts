import type Router from '@koa/router';
import { listChannels, type ChannelView } from '../../../shared/domain/channels/channels.ts';
import { listCustomers } from '../../../shared/domain/customers/customers.ts';
import { DomainError } from '../../../shared/errors.ts';
import {
  calendarEvents, calendarEventsQueryIn, calendarFilterIn, type CalendarEvent, type CalendarFilter,
} from '../calendar/calendar-events.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { html, type SafeHtml } from '../html.ts';
import type { MessageKey } from '../i18n/messages-en.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { renderPage } from '../layout.ts';
import { parseForm } from '../posts/parse-form.ts';
import { postStateLabels, utcText } from '../posts/post-story-view.ts';
import { requireSignIn } from '../session.ts';
import { csrfToken, signedIn, type DashboardState } from '../state.ts';

const dayMs = 86_400_000;

function option(value: string, label: string, chosen: string | undefined): SafeHtml {
  return html`<option value="${value}"${value === (chosen ?? '') ? html` selected` : ''}>${label}</option>`;
}

function filterForm(
  t: Translate, filter: CalendarFilter, customers: { id: string; name: string }[], channels: ChannelView[],
): SafeHtml {
  const state = (value: string, label: string): SafeHtml => option(value, label, filter.state);
  return html`<form method="get" action="/calendar" class="filters">
  <div><label for="filter-customer">${t('calendar.customer')}</label><select id="filter-customer" name="customer">
    ${option('', t('calendar.allCustomers'), filter.customer)}${
  customers.map((one) => option(one.id, one.name, filter.customer))}
  </select></div>
  <div><label for="filter-channel">${t('post.factChannel')}</label><select id="filter-channel" name="channel">
    ${option('', t('calendar.allChannels'), filter.channel)}${
  channels.map((one) => option(one.id, one.name, filter.channel))}
  </select></div>
  <div><label for="filter-state">${t('post.columnState')}</label><select id="filter-state" name="state">
    ${state('', t('calendar.allStates'))}${state('scheduled', t(postStateLabels.QUEUE))}
    ${state('published', t(postStateLabels.PUBLISHED))}${state('failed', t(postStateLabels.ERROR))}
  </select></div>
  <div><button type="submit">${t('calendar.filter')}</button></div>
</form>`;
}

/** Failed posts of the last 30 days with why, readable without the calendar's script. */
function failedList(t: Translate, events: CalendarEvent[]): SafeHtml {
  if (events.length === 0) return html`<p class="muted">${t('calendar.noneFailed')}</p>`;
  return html`<ul class="failed-posts">${events.map((event) => html`<li>${utcText(event.start)}
  <a href="${event.url}">${event.title}</a>:
  <span class="error-text">${event.extendedProps.error ?? t('calendar.noReason')}</span>
  (<a href="${event.url}#actions-heading">${t('calendar.retryFromPost')}</a>)</li>`)}</ul>`;
}

/** What calendar.js says: FullCalendar's buttons, a move's progress and refusals, event names. */
const calendarScriptWords: readonly MessageKey[] = [
  'calendar.previous', 'calendar.next', 'calendar.today', 'calendar.month', 'calendar.week', 'calendar.list',
  'calendar.serverAnswered', 'calendar.moving', 'calendar.moved', 'calendar.notMoved', 'calendar.requestFailed',
  'calendar.loadFailed', 'calendar.eventLabelFailed', 'calendar.eventLabelScheduled',
  'calendar.eventLabelPublished', 'calendar.eventLabelFailedBare',
];

/** FullCalendar's own words for month and day names, where English (its default) is not the language. */
const fullCalendarLocales: Partial<Record<Translate['locale'], string>> = { de: 'fullcalendar-de.min.js' };

/** The filter as query parameters for the events the calendar asks for. */
function eventsUrl(filter: CalendarFilter): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) {
    if (typeof value === 'string' && value !== '') query.set(name, value);
  }
  const text = query.toString();
  return text === '' ? '/calendar/events' : `/calendar/events?${text}`;
}

export function registerCalendarPages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/calendar', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const t = words(ctx);
    const filter = parseForm(calendarFilterIn(t), ctx.query);
    const locale = fullCalendarLocales[t.locale];
    const postListLink = html`<a href="/posts">${t('calendar.postList')}</a>`;
    const now = deps.now();
    const lastMonth = { start: new Date(now.getTime() - 30 * dayMs), end: now };
    const [customers, channels, failed] = await Promise.all([
      listCustomers(deps.db, organizationId),
      listChannels(deps.db, organizationId),
      calendarEvents(deps.db, t, organizationId, lastMonth, { ...filter, state: 'failed' }),
    ]);
    renderPage(ctx, {
      title: t('calendar.title'),
      wide: true,
      // calendar.js first: it prepares the <style> FullCalendar writes into (see its opening comment);
      // a locale's file after the bundle, which it adds itself to.
      scripts: ['calendar.js', 'fullcalendar.min.js', ...(locale === undefined ? [] : [locale])],
      scriptWords: calendarScriptWords,
      styleNonce: true,
      body: html`${filterForm(t, filter, customers, channels)}
<p class="muted">${t('calendar.hint')}</p>
<p id="calendar-status" role="status" aria-live="polite"></p>
<div id="calendar" class="calendar" data-events="${eventsUrl(filter)}" data-csrf="${csrfToken(ctx)}"
  data-locale="${t.locale}">
  <p class="muted">${t.markup('calendar.needsScript', { link: postListLink })}</p>
</div>
<section aria-labelledby="failed-heading"><h2 id="failed-heading">${t('calendar.failedHeading')}</h2>
${failedList(t, failed)}</section>`,
    });
  });

  // FullCalendar's event source: JSON, session-authenticated, scoped to the organization, range-bounded.
  router.get('/calendar/events', requireSignIn(), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    try {
      const t = words(ctx);
      const query = parseForm(calendarEventsQueryIn(t), ctx.query);
      const { start, end, ...filter } = query;
      ctx.body = await calendarEvents(deps.db, t, signedIn(ctx).organization.id, { start, end }, filter);
    } catch (error) {
      // The script reads JSON: a refused range is told as JSON with its status, not as a page.
      if (!(error instanceof DomainError)) throw error;
      ctx.status = error.status;
      ctx.body = { error: error.code, message: error.message };
    }
  });
}
