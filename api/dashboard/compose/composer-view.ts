import { html, type SafeHtml } from '../html.ts';
import { csrfField } from '../layout.ts';
import type { DashboardState } from '../state.ts';
import { channelAvatar } from './channel-preview.ts';
import type { ChannelGroup, ComposerChannel } from './composer-channels.ts';
import type { ComposerReport } from './composer-check.ts';
import { composerChecks, composerStatus } from './composer-checks-view.ts';
import { problemList } from './problem-list.ts';
import type { ComposerForm, ComposerWhen } from './composer-form.ts';
import type { ComposerMedia } from './composer-media.ts';
import { mediaPicker } from './media-picker-view.ts';
import type { ComposerOrigin } from './composer-origin.ts';
import { previewParts } from './preview-parts.ts';
import { channelSettingsForm } from './settings-form-view.ts';

export interface ComposerView {
  form: ComposerForm;
  groups: ChannelGroup[];
  /** The library's newest files, and older ones the form names. */
  library: ComposerMedia[];
  report: ComposerReport | null;
  /** A refusal of the whole send (budget spent, queue unavailable), shown above the form. */
  problem?: string | undefined;
  /** Why the live check is not running (its budget spent). */
  paused?: string | null | undefined;
  /** The part to put the cursor in (the one just added). */
  focusPart?: number | undefined;
  /** The stored post the form was filled from: edited, or duplicated as a new one. */
  origin?: ComposerOrigin | undefined;
  /** Something the person should know about the filled form (files left out). */
  notice?: string | undefined;
}

/**
 * Buttons that change the form (add or remove a part) post the whole form like any submit; with
 * htmx they swap in only the composer, so the page does not reload.
 */
const inPlace = html`hx-post="/compose" hx-select="#composer-page" hx-target="#composer-page" hx-swap="outerHTML"`;

/**
 * Enter in a field submits with the form's first submit button: this one, so that it checks the
 * post rather than removing a part or sending it. Off screen and out of the tab order.
 */
const defaultAction = html`<button type="submit" name="intent" value="check" class="default-action" tabindex="-1"
 aria-hidden="true">Check</button>`;

function partField(text: string, index: number, view: ComposerView): SafeHtml {
  const label = index === 0 ? 'Part 1: the post' : `Part ${index + 1}: reply or comment`;
  const remove = view.form.part.length > 1
    ? html`<button type="submit" name="intent" value="remove-part-${index}" ${inPlace}>
Remove part ${index + 1}</button>`
    : '';
  return html`<div class="part">
<label for="part-${index}">${label}</label>
<textarea id="part-${index}" name="part" rows="5" aria-describedby="part-problems-${index}"${
  view.focusPart === index ? html` autofocus` : ''}>${text}</textarea>
${problemList(`part-problems-${index}`, view.report?.parts.get(index) ?? [])}
<div class="part-tools">${remove}</div>
</div>`;
}

function channelChoice(channel: ComposerChannel, chosen: ReadonlySet<string>, view: ComposerView): SafeHtml {
  const state = channel.usable ? '' : html` <span class="muted">(needs reconnecting)</span>`;
  const settings = channelSettingsForm(channel, view.form.settings[channel.id] ?? {},
    view.report?.settings.get(channel.id) ?? new Map<string, string[]>());
  return html`<li class="channel-choice"><label>
<input type="checkbox" name="channel" value="${channel.id}"${chosen.has(channel.id) ? html` checked` : ''}>
${channelAvatar(channel, 'channel-avatar')} ${channel.name}
<span class="muted">${channel.platform.displayName}, ${channel.timeZone}</span>${state}</label>
${settings}</li>`;
}

function channelPicker(view: ComposerView): SafeHtml {
  const chosen = new Set(view.form.channel);
  const groups = view.groups.map((group) => html`<div class="channel-group">
<h3>${group.customer ?? 'Without a customer'}</h3>
<ul class="choices">${group.channels.map((channel) => channelChoice(channel, chosen, view))}</ul></div>`);
  return html`<fieldset><legend>Channels</legend>
${groups}
${problemList('picker-problems', view.report?.picker ?? [])}
</fieldset>`;
}

const whens: Record<ComposerWhen, string> = {
  now: 'Now',
  at: 'At a date and time',
  queue: 'In each channel\'s next free queue slot',
  draft: 'Save as a draft',
};

function schedulePicker(view: ComposerView): SafeHtml {
  const options = (Object.keys(whens) as ComposerWhen[]).map((when) => html`<li><label>
<input type="radio" name="when" value="${when}"${view.form.when === when ? html` checked` : ''}>
${whens[when]}</label></li>`);
  return html`<fieldset><legend>When</legend>
<ul class="choices">${options}</ul>
<label for="at">Date and time, in each channel's time zone</label>
<input id="at" name="at" type="datetime-local" value="${view.form.at}" aria-describedby="schedule-problems">
<label for="repeat-days">Repeat every … days (empty: publish once)</label>
<input id="repeat-days" name="repeatDays" type="number" min="1" max="365" inputmode="numeric"
 value="${view.form.repeatDays}" aria-describedby="schedule-problems">
<ul class="choices"><li><label><input type="checkbox" name="shortLink" value="on"${view.form.shortLink === 'on'
  ? html` checked` : ''}> Shorten links (SPS's own short links, with clicks counted per post)</label></li></ul>
${problemList('schedule-problems', view.report?.schedule ?? [])}
</fieldset>`;
}

/** Which post the form edits or duplicates, linked to its page; an edit carries the post's id in the form. */
function originLine(origin: ComposerOrigin | undefined): SafeHtml {
  if (origin === undefined) return html``;
  const name = origin.excerpt === '' ? origin.postId : `“${origin.excerpt}”`;
  const post = html`<a href="/posts/${origin.postId}">${name}</a>`;
  const note = origin.note === null ? '' : html` ${origin.note}`;
  return origin.mode === 'edit'
    ? html`<p class="notice" id="composer-origin">Editing post ${post}: sending changes it.${note}</p>`
    : html`<p class="notice" id="composer-origin">Duplicating post ${post}: sending creates a new post;
the original stays as it is.${note}</p>`;
}

/** The composer: the form on the left, each chosen channel's count, problems and preview beside it. */
export function composerBody(ctx: { state: DashboardState }, view: ComposerView): SafeHtml {
  if (view.groups.length === 0) {
    return html`<p>Connect a channel first: <a href="/channels">Channels</a>.</p>`;
  }
  const problem = view.problem === undefined ? '' : html`<p class="error" role="alert">${view.problem}</p>`;
  const notice = view.notice === undefined ? '' : html`<p class="notice">${view.notice}</p>`;
  const edited = view.form.post === undefined ? '' : html`<input type="hidden" name="post" value="${view.form.post}">`;
  return html`<div id="composer-page">${problem}${originLine(view.origin)}${notice}<div class="composer">
<form id="composer" method="post" action="/compose">${csrfField(ctx)}${edited}
${defaultAction}
<fieldset><legend>Text</legend>
${view.form.part.map((text, index) => partField(text, index, view))}
<button type="submit" name="intent" value="add-part" ${inPlace}>Add a thread part</button>
</fieldset>
${mediaPicker(view.form, view.library, view.report?.media ?? [])}
${channelPicker(view)}
${schedulePicker(view)}
<p><button type="submit" name="intent" value="send" class="primary">Send</button>
<button type="submit" name="intent" value="check">Check</button></p>
</form>
<div><h2>Per channel</h2>
<p id="composer-status" role="status">${composerStatus(view.report, view.paused ?? null)}</p>
<div id="composer-checks" hx-post="/compose/check" hx-include="#composer"
 hx-trigger="input delay:300ms from:#composer" hx-sync="this:replace">
${composerChecks(view.report, previewParts(view.form, view.library))}
</div></div>
</div></div>`;
}
