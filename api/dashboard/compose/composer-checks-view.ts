import type { PartLength } from '../../../shared/platforms/part-lengths.ts';
import { html, type SafeHtml } from '../html.ts';
import { problemList } from './problem-list.ts';
import { channelAvatar, channelPreview } from './channel-preview.ts';
import type { ChannelReport, ComposerReport } from './composer-check.ts';
import type { PreviewPart } from './preview-parts.ts';
import { settingProblems } from './settings-form-view.ts';

function lengthLine(length: PartLength, index: number): SafeHtml {
  if (length.length === null) {
    return html`<li>Part ${index + 1}: <span class="over">over the limit of ${length.limit}</span></li>`;
  }
  const left = length.limit - length.length;
  const verdict = left < 0
    ? html`<span class="over">${-left} over</span>`
    : html`${left} left`;
  return html`<li>Part ${index + 1}: ${length.length} / ${length.limit} ${length.unit} · ${verdict}</li>`;
}

function channelReport(report: ChannelReport, parts: readonly PreviewPart[]): SafeHtml {
  const { channel } = report;
  const id = `check-${channel.id}`;
  return html`<section class="channel-check" aria-labelledby="${id}">
<h3 id="${id}">${channelAvatar(channel, 'preview-avatar')} ${channel.name}
 <span class="muted">${channel.platform.displayName} · ${channel.timeZone}</span></h3>
<p class="timing">${report.timing}</p>
<ul class="counts">${report.lengths.map(lengthLine)}</ul>
${problemList(`channel-problems-${channel.id}`, report.problems)}
${channelPreview(channel, parts)}
</section>`;
}

/** One line on the whole post: ready, how many problems, or why checks are paused. */
export function composerStatus(report: ComposerReport | null, paused: string | null): string {
  if (paused !== null) return paused;
  if (report === null || report.channels.length === 0) return 'Choose channels to see each one\'s count and preview.';
  const settings = [...report.settings.values()].flatMap((byKey) => [...byKey.values()].flat());
  const count = [...report.parts.values()].flat().length + report.channels.flatMap((one) => one.problems).length
    + settings.length + report.picker.length + report.schedule.length + report.media.length;
  const problems = `${count} ${count === 1 ? 'problem' : 'problems'}`;
  return report.valid ? 'Ready to send.' : `${problems} to fix before sending.`;
}

/** The right-hand column: one section per chosen channel; what the live check replaces. */
export function composerChecks(report: ComposerReport | null, parts: readonly PreviewPart[]): SafeHtml {
  return html`${(report?.channels ?? []).map((one) => channelReport(one, parts))}`;
}

/**
 * The status line and the problem lists beside the form's fields, swapped in out of band by the
 * live check. The status keeps its element (a live region) and gets new words.
 */
export function fieldProblems(report: ComposerReport | null, partCount: number, paused: string | null): SafeHtml {
  const status = html`<p id="composer-status" hx-swap-oob="innerHTML">${composerStatus(report, paused)}</p>`;
  if (report === null) return status;
  const parts = Array.from({ length: partCount }, (_unused, index) =>
    problemList(`part-problems-${index}`, report.parts.get(index) ?? [], true));
  const settings = settingProblems(report.channels.map((one) => one.channel), report.settings);
  return html`${status}${parts}${settings}${problemList('picker-problems', report.picker, true)}${
    problemList('schedule-problems', report.schedule, true)}${problemList('media-problems', report.media, true)}`;
}
