import type Router from '@koa/router';
import { DateTime } from 'luxon';
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
import { csrfField, renderPage } from '../layout.ts';
import { requireSignIn } from '../session.ts';
import { signedIn, type DashboardRouterContext, type DashboardState } from '../state.ts';

const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

/** What the form shows: the zone, and each weekday's times as one comma-separated field. */
interface ScheduleForm {
  timeZone: string;
  times: string[];
}

function formOf(schedule: PostingSchedule): ScheduleForm {
  const times = weekdays.map((_, index) => schedule.postingSlots
    .filter((slot) => slot.weekday === index + 1).map((slot) => slot.time).join(', '));
  return { timeZone: schedule.timeZone, times };
}

/**
 * The posted form as a schedule, or the first problem in words a person reads: which weekday,
 * which value. `9:00` is read as `09:00`; the rest is checked by the api's own schema.
 */
function scheduleFromForm(form: ScheduleForm): PostingSchedule | string {
  const given: { slot: PostingSlot; typed: string }[] = form.times.flatMap((field, index) =>
    field.split(/[\s,]+/).filter((typed) => typed !== '').map((typed) => ({
      typed,
      slot: { weekday: index + 1, time: /^\d:\d\d$/.test(typed) ? `0${typed}` : typed },
    })));
  const postingSlots = given.map((one) => one.slot);
  const parsed = postingScheduleSchema.safeParse({ timeZone: form.timeZone, postingSlots });
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  if (issue?.path[0] === 'timeZone') return `"${form.timeZone}" is not a time zone name such as Europe/Berlin`;
  if (issue?.code === 'too_big') return `at most ${maxPostingSlots} slots a week`;
  const entry = typeof issue?.path[1] === 'number' ? given[issue.path[1]] : undefined;
  if (entry === undefined) return issue?.message ?? 'the schedule could not be read';
  return `${weekdays[entry.slot.weekday - 1] ?? 'a day'}: "${entry.typed}" ${issue?.path[2] === 'time'
    ? 'is not a time of day as HH:MM, from 00:00 to 23:59'
    : 'is listed twice'}`;
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
): Promise<SafeHtml> {
  try {
    const slot = await findFreeSlot(deps.db, organizationId, channelId, deps.now());
    const local = DateTime.fromJSDate(slot, { zone }).toFormat('cccc d LLLL yyyy, HH:mm');
    return html`<p>Next free slot: <time datetime="${slot.toISOString()}">${local}</time> (${zone})</p>`;
  } catch (error) {
    // No free slot is a state to show (no slots, or all taken), not a failure of the page.
    if (!(error instanceof DomainError) || error.code !== 'conflict') throw error;
    return html`<p class="muted">No free slot: ${sentence(error.message)}</p>`;
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
  const channel = await findOwnedChannel(deps.db, organizationId, channelId);
  const stored = scheduleOfChannel(channel);
  const form = view.form ?? formOf(stored);
  const problem = view.problem === undefined ? '' : html`<p class="error" role="alert">${view.problem}</p>`;
  const notice = view.notice === undefined ? '' : html`<p class="notice" role="status">${view.notice}</p>`;
  const zones = Intl.supportedValuesOf('timeZone').map((zone) => html`<option value="${zone}"></option>`);
  const fields = weekdays.map((name, index) => html`<label for="slots-${index + 1}">${name}</label>
<input id="slots-${index + 1}" name="slots-${index + 1}" value="${form.times[index] ?? ''}"
 placeholder="e.g. 09:00, 17:30" maxlength="500" aria-describedby="slots-hint">`);
  renderPage(ctx, {
    status,
    title: `Posting schedule of ${channel.name}`,
    body: html`${problem}${notice}
<p>Posts sent with type <code>queue</code> take the next free slot; <code>GET /find-slot</code> answers it.</p>
${await nextSlotLine(deps, organizationId, channelId, stored.timeZone)}
<form method="post" action="/channels/${channelId}/schedule">${csrfField(ctx)}
<label for="time-zone">Time zone</label>
<input id="time-zone" name="timeZone" required maxlength="64" list="time-zones" value="${form.timeZone}">
<datalist id="time-zones">${zones}</datalist>
<fieldset><legend>Weekly slots</legend>
<p id="slots-hint" class="muted">Local times in the time zone, HH:MM, separated by commas. A slot in the hour the
clocks skip in spring is taken when they jump (02:30 becomes 03:00); one in the hour they repeat in autumn, the
first time it comes.</p>
${fields}</fieldset>
<p><button type="submit" class="primary">Save schedule</button> <a href="/channels">Back to channels</a></p>
</form>`,
  });
}

export function registerChannelSchedulePages(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/channels/:id/schedule', requireSignIn(), async (ctx) => {
    await schedulePage(ctx, deps, ctx.query.saved === '1' ? { notice: 'The schedule was saved.' } : {});
  });

  router.post('/channels/:id/schedule', requireSignIn(), async (ctx) => {
    const organizationId = signedIn(ctx).organization.id;
    const channelId = ctx.params.id ?? '';
    const times = weekdays.map((_, index) => formField(ctx, `slots-${index + 1}`));
    const form = { timeZone: formField(ctx, 'timeZone'), times };
    const schedule = scheduleFromForm(form);
    if (typeof schedule === 'string') {
      await schedulePage(ctx, deps, { form, problem: sentence(schedule) }, 400);
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
