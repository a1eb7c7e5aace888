import type { PartLength } from '../../../shared/platforms/part-lengths.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Translate } from '../i18n/translate.ts';
import { problemList } from './problem-list.ts';
import { channelAvatar, channelPreview } from './channel-preview.ts';
import type { ChannelReport, ComposerReport } from './composer-check.ts';
import type { PreviewPart } from './preview-parts.ts';
import { settingProblems } from './settings-form-view.ts';

/** A part's count against the channel's limit. Numbers as the platform counts them: "2193", not "2,193". */
function lengthLine(length: PartLength, index: number, t: Translate): SafeHtml {
  const number = index + 1;
  if (length.length === null) {
    const over = html`<span class="over">${t('compose.overLimitOf', { limit: String(length.limit) })}</span>`;
    return html`<li>${t.markup('compose.partOverLimit', { number, over })}</li>`;
  }
  const left = length.limit - length.length;
  const verdict = left < 0
    ? html`<span class="over">${t('compose.countOver', { amount: String(-left) })}</span>`
    : t('compose.countLeft', { amount: String(left) });
  const counted = { number, length: String(length.length), limit: String(length.limit), unit: length.unit, verdict };
  return html`<li>${t.markup('compose.partCount', counted)}</li>`;
}

function channelReport(report: ChannelReport, parts: readonly PreviewPart[], t: Translate): SafeHtml {
  const { channel } = report;
  const id = `check-${channel.id}`;
  return html`<section class="channel-check" aria-labelledby="${id}">
<h3 id="${id}">${channelAvatar(channel, 'preview-avatar')} ${channel.name}
 <span class="muted">${channel.platform.displayName} · ${channel.timeZone}</span></h3>
<p class="timing">${report.timing}</p>
<ul class="counts">${report.lengths.map((length, index) => lengthLine(length, index, t))}</ul>
${problemList(`channel-problems-${channel.id}`, report.problems)}
${channelPreview(channel, parts, t)}
</section>`;
}

/** One line on the whole post: ready, how many problems, or why checks are paused. */
export function composerStatus(report: ComposerReport | null, paused: string | null, t: Translate): string {
  if (paused !== null) return paused;
  if (report === null || report.channels.length === 0) return t('compose.statusChooseChannels');
  const settings = [...report.settings.values()].flatMap((byKey) => [...byKey.values()].flat());
  const count = [...report.parts.values()].flat().length + report.channels.flatMap((one) => one.problems).length
    + settings.length + report.picker.length + report.schedule.length + report.media.length;
  return report.valid ? t('compose.statusReady') : t.count('compose.statusProblems', count);
}

/** The right-hand column: one section per chosen channel; what the live check replaces. */
export function composerChecks(report: ComposerReport | null, parts: readonly PreviewPart[], t: Translate): SafeHtml {
  return html`${(report?.channels ?? []).map((one) => channelReport(one, parts, t))}`;
}

/**
 * The status line and the problem lists beside the form's fields, swapped in out of band by the
 * live check. The status keeps its element (a live region) and gets new words.
 */
export function fieldProblems(
  report: ComposerReport | null, partCount: number, paused: string | null, t: Translate,
): SafeHtml {
  const status = html`<p id="composer-status" hx-swap-oob="innerHTML">${composerStatus(report, paused, t)}</p>`;
  if (report === null) return status;
  const parts = Array.from({ length: partCount }, (_unused, index) =>
    problemList(`part-problems-${index}`, report.parts.get(index) ?? [], true));
  const settings = settingProblems(report.channels.map((one) => one.channel), report.settings);
  return html`${status}${parts}${settings}${problemList('picker-problems', report.picker, true)}${
    problemList('schedule-problems', report.schedule, true)}${problemList('media-problems', report.media, true)}`;
}
