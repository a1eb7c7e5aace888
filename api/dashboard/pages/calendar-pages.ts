import type Router from '@koa/router';
import { listChannels, type ChannelView } from '../../../shared/domain/channels/channels.ts';
import { listCustomers } from '../../../shared/domain/customers/customers.ts';
import { DomainError } from '../../../shared/errors.ts';
import {
  calendarEvents, calendarEventsQuery, calendarFilter, type CalendarEvent, type CalendarFilter,
} from '../calendar/calendar-events.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { html, type SafeHtml } from '../html.ts';
import { renderPage } from '../layout.ts';
import { parseForm } from '../posts/parse-form.ts';
import { utcText } from '../posts/post-story-view.ts';
import { requireSignIn } from '../session.ts';
import { csrfToken, signedIn, type DashboardState } from '../state.ts';

const dayMs = 86_400_000;

function option(value: string, label: string, chosen: string | undefined): SafeHtml {
  return html`<option value="${value}"${value === (chosen ?? '') ? html` selected` : ''}>${label}</option>`;
}

function filterForm(
  filter: CalendarFilter, customers: { id: string; name: string }[], channels: ChannelView[],
): SafeHtml {
  return html`<form method="get" action="/calendar" class="filters">
  <div><label for="filter-customer">Customer</label><select id="filter-customer" name="customer">
    ${option('', 'All customers', filter.customer)}${customers.map((one) => option(one.id, one.name, filter.customer))}
  </select></div>
  <div><label for="filter-channel">Channel</label><select id="filter-channel" name="channel">
    ${option('', 'All channels', filter.channel)}${channels.map((one) => option(one.id, one.name, filter.channel))}
  </select></div>
  <div><label for="filter-state">State</label><select id="filter-state" name="state">
    ${option('', 'Scheduled, published and failed', filter.state)}${option('scheduled', 'Scheduled', filter.state)}
    ${option('published', 'Published', filter.state)}${option('failed', 'Failed', filter.state)}
  </select></div>
  <div><button type="submit">Filter</button></div>
</form>`;
}

/** Failed posts of the last 30 days with why, readable without the calendar's script. */
function failedList(events: CalendarEvent[]): SafeHtml {
  if (events.length === 0) return html`<p class="muted">No post failed in the last 30 days.</p>`;
  return html`<ul class="failed-posts">${events.map((event) => html`<li>${utcText(event.start)}
  <a href="${event.url}">${event.title}</a>:
  <span class="error-text">${event.extendedProps.error ?? 'no reason was recorded'}</span>
  (<a href="${event.url}#actions-heading">retry from the post page</a>)</li>`)}</ul>`;
}

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
    const filter = parseForm(calendarFilter, ctx.query);
    const now = deps.now();
    const lastMonth = { start: new Date(now.getTime() - 30 * dayMs), end: now };
    const [customers, channels, failed] = await Promise.all([
      listCustomers(deps.db, organizationId),
      listChannels(deps.db, organizationId),
      calendarEvents(deps.db, organizationId, lastMonth, { ...filter, state: 'failed' }),
    ]);
    renderPage(ctx, {
      title: 'Calendar',
      wide: true,
      // calendar.js first: it prepares the <style> FullCalendar writes into (see its opening comment).
      scripts: ['calendar.js', 'fullcalendar.min.js'],
      styleNonce: true,
      body: html`${filterForm(filter, customers, channels)}
<p class="muted">Drag a scheduled post to another day or time to move it; open a post to move it with the keyboard,
retry it or delete it. Times are shown in your browser's time zone.</p>
<p id="calendar-status" role="status" aria-live="polite"></p>
<div id="calendar" class="calendar" data-events="${eventsUrl(filter)}" data-csrf="${csrfToken(ctx)}">
  <p class="muted">The calendar needs JavaScript; <a href="/posts">the list of posts</a> works without it.</p>
</div>
<section aria-labelledby="failed-heading"><h2 id="failed-heading">Failed in the last 30 days</h2>
${failedList(failed)}</section>`,
    });
  });

  // FullCalendar's event source: JSON, session-authenticated, scoped to the organization, range-bounded.
  router.get('/calendar/events', requireSignIn(), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    try {
      const query = parseForm(calendarEventsQuery, ctx.query);
      const { start, end, ...filter } = query;
      ctx.body = await calendarEvents(deps.db, signedIn(ctx).organization.id, { start, end }, filter);
    } catch (error) {
      // The script reads JSON: a refused range is told as JSON with its status, not as a page.
      if (!(error instanceof DomainError)) throw error;
      ctx.status = error.status;
      ctx.body = { error: error.code, message: error.message };
    }
  });
}
