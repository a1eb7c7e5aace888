// The calendar island (api/dashboard/pages/calendar-pages.ts): FullCalendar reads the posts from
// /calendar/events and a drag of a scheduled post moves it through POST /posts/:id/move, the form
// the post page offers for the keyboard. Runs under the page's CSP: no eval, no inline handlers.
// This script comes before FullCalendar's bundle: it gives FullCalendar the <style> element it
// writes its CSS into (found by data-fullcalendar), carrying this script's nonce, which style-src
// allows on this page alone; the calendar itself starts once the bundle has run.
/* global FullCalendar, fetch, URLSearchParams, pageWord -- FullCalendar: the bundle, run before DOMContentLoaded;
   pageWord: page-words.js */
'use strict';

(() => {
  const style = document.createElement('style');
  style.setAttribute('data-fullcalendar', '');
  style.nonce = document.currentScript === null ? '' : document.currentScript.nonce;
  // Before our stylesheet, so that its rules win over FullCalendar's where both set a property.
  document.head.insertBefore(style, document.head.querySelector('link[rel="stylesheet"]'));
  const sheet = style.sheet;
  if (sheet !== null) {
    const insert = sheet.insertRule.bind(sheet);
    // FullCalendar's icon font is a data: URL that default-src 'none' refuses (Chromium fetched it
    // as soon as it was declared, in our tests); our buttons are text, so its @font-face is left out.
    // FullCalendar counts positions as if every rule was kept: a skipped one shifts the rest, so the
    // position is capped at the end of the sheet, where FullCalendar appends anyway.
    sheet.insertRule = (rule, index) => (rule.trimStart().startsWith('@font-face')
      ? sheet.cssRules.length
      : insert(rule, Math.min(index ?? 0, sheet.cssRules.length)));
  }
  document.addEventListener('DOMContentLoaded', start);
})();

function start() {
  const element = document.getElementById('calendar');
  const status = document.getElementById('calendar-status');
  if (element === null || status === null || typeof FullCalendar === 'undefined') return;
  const eventsUrl = element.getAttribute('data-events') || '/calendar/events';
  const csrf = element.getAttribute('data-csrf') || '';
  // The page's language: FullCalendar's month and day names (its locale file, loaded for it) and our dates.
  const locale = element.getAttribute('data-locale') || 'en';
  const narrow = window.matchMedia('(max-width: 40rem)').matches;
  /** An event's name for hovering and screen readers, by the state the server gave it. */
  const stateLabels = {
    scheduled: 'calendar.eventLabelScheduled',
    published: 'calendar.eventLabelPublished',
    failed: 'calendar.eventLabelFailedBare',
  };

  /** The message of a refusal: the problem page's alert, or the JSON's message. */
  async function refusalOf(response) {
    const text = await response.text();
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed.message === 'string') return parsed.message;
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      // Not JSON: a dashboard problem page, whose alert says what went wrong.
    }
    const page = new DOMParser().parseFromString(text, 'text/html');
    const alert = page.querySelector('[role="alert"]');
    return alert === null ? pageWord('calendar.serverAnswered', { status: response.status }) : alert.textContent.trim();
  }

  async function move(info) {
    const body = new URLSearchParams({ publish_at: info.event.start.toISOString() });
    status.textContent = pageWord('calendar.moving', { title: info.event.title });
    try {
      const response = await fetch(`/posts/${encodeURIComponent(info.event.id)}/move`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: {
          Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded', 'X-CSRF-Token': csrf,
        },
        body,
      });
      if (!response.ok) {
        info.revert();
        status.textContent = pageWord('calendar.notMoved', { reason: await refusalOf(response) });
        return;
      }
      const moved = await response.json();
      const time = new Date(moved.publishDate).toLocaleString(locale);
      status.textContent = pageWord('calendar.moved', { title: info.event.title, time });
    } catch (error) {
      info.revert();
      const reason = error instanceof Error ? error.message : pageWord('calendar.requestFailed');
      status.textContent = pageWord('calendar.notMoved', { reason });
    }
  }

  const calendar = new FullCalendar.Calendar(element, {
    initialView: narrow ? 'listWeek' : 'dayGridMonth',
    headerToolbar: narrow
      ? { start: 'prev,next', center: 'title', end: 'listWeek,dayGridMonth' }
      : { start: 'prev,next today', center: 'title', end: 'dayGridMonth,timeGridWeek,listWeek' }, // not-ui-text
    locale,
    // Text buttons: the icon font is a data: URL the CSP's default-src refuses.
    buttonIcons: false,
    buttonText: {
      prev: pageWord('calendar.previous'),
      next: pageWord('calendar.next'),
      today: pageWord('calendar.today'),
      month: pageWord('calendar.month'),
      week: pageWord('calendar.week'),
      list: pageWord('calendar.list'),
    },
    height: 'auto',
    firstDay: 1,
    nowIndicator: true,
    eventDurationEditable: false,
    eventTimeFormat: { hour: '2-digit', minute: '2-digit', hour12: false },
    events: { url: eventsUrl, failure: () => { status.textContent = pageWord('calendar.loadFailed'); } },
    eventDidMount: (info) => {
      const props = info.event.extendedProps;
      // The reason of a failure on hover; screen readers get it in the link's name.
      const title = info.event.title;
      const label = props.error
        ? pageWord('calendar.eventLabelFailed', { title, error: props.error })
        : pageWord(stateLabels[props.state] || 'calendar.eventLabelScheduled', { title });
      info.el.setAttribute('title', label);
      info.el.setAttribute('aria-label', label);
      // A post is a link to its page: without this, pressing on it starts the browser's own link drag
      // and FullCalendar never sees the move.
      info.el.addEventListener('dragstart', (event) => event.preventDefault());
    },
    eventDrop: (info) => { void move(info); },
  });
  element.replaceChildren();
  calendar.render();
}
