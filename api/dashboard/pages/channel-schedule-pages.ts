import type Router from '@koa/router';
import { DateTime, Info } from 'luxon';
import { setChannelSchedule } from '../../../shared/domain/channels/channel-schedule.ts';
import { findOwnedChannel } from '../../../shared/domain/channels/channels.ts';
import { findFreeSlot } from '../../../shared/domain/channels/find-slot.ts';
import {
  maxPostingSlots, postingScheduleSchema, scheduleOfChannel, type PostingSchedule, type PostingSlot,
} from '../../../shared/domain/channels/posting-schedule.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { formField } from '../form-body.ts';
import { html, type SafeHtml } from '../html.ts';
import { sentence } from '../html-errors.ts';
import { words, type Translate } from '../i18n/translate.ts';
import { csrfField, renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

/** The week's days from Monday, as the schedule numbers them (1 to 7), named in the reader's language. */
const weekdayNames = (t: Translate): string[] => Info.weekdays('long', { locale: t.locale });

/** The form's seven weekday fields, Monday first. */
const weekdays = [1, 2, 3, 4, 5, 6, 7] as const;

/** What the form shows: the zone, and each weekday's times as one comma-separated field. */
interface ScheduleForm {
  timeZone: string;
  times: string[];
}

function formOf(schedule: PostingSchedule): ScheduleForm {
  const times = weekdays.map((weekday) => schedule.postingSlots
    .filter((slot) => slot.weekday === weekday).map((slot) => slot.time).join(', '));
  return { timeZone: schedule.timeZone, times };
}

/**
 * The posted form as a schedule, or the first problem as a sentence a person reads: which weekday,
 * which value. `9:00` is read as `09:00`; the rest is checked by the api's own schema.
 */
function scheduleFromForm(t: Translate, form: ScheduleForm): PostingSchedule | string {
  const given: { slot: PostingSlot; typed: string }[] = form.times.flatMap((field, index) =>
    field.split(/[\s,]+/).filter((typed) => typed !== '').map((typed) => ({
      typed,
      slot: { weekday: index + 1, time: /^\d:\d\d$/.test(typed) ? `0${typed}` : typed },
    })));
  const postingSlots = given.map((one) => one.slot);
  const parsed = postingScheduleSchema.safeParse({ timeZone: form.timeZone, postingSlots });
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  if (issue?.path[0] === 'timeZone') return t('schedule.notATimeZone', { zone: form.timeZone });
  if (issue?.code === 'too_big') return t('schedule.tooManySlots', { max: maxPostingSlots });
  const entry = typeof issue?.path[1] === 'number' ? given[issue.path[1]] : undefined;
  // The schema's own message is the api's words, shown as a sentence like the domain's.
  if (entry === undefined) return issue === undefined ? t('schedule.unreadable') : sentence(issue.message);
  const values = { day: weekdayNames(t)[entry.slot.weekday - 1] ?? t('schedule.aDay'), typed: entry.typed };
  return t(issue?.path[2] === 'time' ? 'schedule.notATime' : 'schedule.listedTwice', values);
}

interface PageView {
  /** What the user typed, shown again when refused; the stored schedule otherwise. */
  form?: ScheduleForm;
  problem?: string;
  notice?: string;
}

async function nextSlotLine(
  deps: DashboardDeps,
  organizationId: string,
  channelId: string,
  zone: string,
  t: Translate,
): Promise<SafeHtml> {
  try {
    const slot = await findFreeSlot(deps.db, organizationId, channelId, deps.now());
    const local = DateTime.fromJSDate(slot, { zone }).setLocale(t.locale)
      .toFormat('cccc d LLLL yyyy, HH:mm'); // not-ui-text
    const time = html`<time datetime="${slot.toISOString()}">${local}</time>`;
    return html`<p>${t.markup('schedule.nextFreeSlot', { time, zone })}</p>`;
  } catch (error) {
    // No free slot is a state to show (no slots, or all taken), not a failure of the page.
    if (!(error instanceof DomainError) || error.code !== 'conflict') throw error;
    return html`<p class="muted">${t('schedule.noFreeSlot', { reason: sentence(error.message) })}</p>`;
  }
}

async function schedulePage(
  ctx: DashboardRouterContext,
  deps: DashboardDeps,
  view: PageView,
  status = 200,
): Promise<void> {
  const organizationId = signedIn(ctx).organization.id;
  const channelId = ctx.params.id ?? '';
  const t = words(ctx);
  const channel = await findOwnedChannel(deps.db, organizationId, channelId);
  const stored = scheduleOfChannel(channel);
  const form = view.form ?? formOf(stored);
  const problem = view.problem === undefined ? '' : html`<p class="error" role="alert">${view.problem}</p>`;
  const notice = view.notice === undefined ? '' : html`<p class="notice" role="status">${view.notice}</p>`;
  const zones = Intl.supportedValuesOf('timeZone').map((zone) => html`<option value="${zone}"></option>`);
  const names = weekdayNames(t);
  const fields = weekdays.map((weekday, index) => html`<label for="slots-${weekday}">${names[index] ?? ''}</label>
<input id="slots-${weekday}" name="slots-${weekday}" value="${form.times[index] ?? ''}"
 placeholder="${t('schedule.slotsExample')}" maxlength="500" aria-describedby="slots-hint">`);
  renderPage(ctx, {
    status,
    title: t('schedule.title', { name: channel.name }),
    body: html`${problem}${notice}
<p>${t.markup('schedule.queueIntro', {
    queue: html`<code>queue</code>`,
    findSlot: html`<code>GET /find-slot</code>`,
  })}</p>
${await nextSlotLine(deps, organizationId, channelId, stored.timeZone, t)}
<form method="post" action="/channels/${channelId}/schedule">${csrfField(ctx)}
<label for="time-zone">${t('schedule.timeZone')}</label>
<input id="time-zone" name="timeZone" required maxlength="64" list="time-zones" value="${form.timeZone}">
<datalist id="time-zones">${zones}</datalist>
<fieldset><legend>${t('schedule.weeklySlots')}</legend>
<p id="slots-hint" class="muted">${t('schedule.slotsHint')}</p>
${fields}</fieldset>
<p><button type="submit" class="primary">${t('schedule.save')}</button>
<a href="/channels">${t('channels.backToChannels')}</a></p>
</form>`,
  });
}

export function registerChannelSchedulePages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/channels/:id/schedule', requireSignIn(), async (ctx) => {
    const saved = ctx.query.saved === '1' ? { notice: words(ctx)('schedule.saved') } : {};
    await schedulePage(ctx, deps, saved);
  });

  router.post('/channels/:id/schedule', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const channelId = ctx.params.id ?? '';
    const times = weekdays.map((weekday) => formField(ctx, `slots-${weekday}`));
    const form = { timeZone: formField(ctx, 'timeZone'), times };
    const schedule = scheduleFromForm(words(ctx), form);
    if (typeof schedule === 'string') {
      await schedulePage(ctx, deps, { form, problem: schedule }, 400);
      return;
    }
    try {
      await setChannelSchedule(deps.db, organizationId, channelId, schedule);
    } catch (error) {
      // A zone the database does not know is shown with the form; anything else propagates.
      if (!(error instanceof DomainError) || error.code !== 'unknown_time_zone') throw error;
      await schedulePage(ctx, deps, { form, problem: sentence(error.message) }, error.status);
      return;
    }
    ctx.redirect(`/channels/${channelId}/schedule?saved=1`);
  });
}
