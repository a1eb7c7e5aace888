import { html, type SafeHtml } from '../html.ts';
import { words, type PlainKey, type Translate } from '../i18n/translate.ts';
import { csrfField } from '../layout.ts';
import type { DashboardContext } from '../state.ts';
import { channelAvatar } from './channel-preview.ts';
import type { ChannelGroup, ComposerChannel } from './composer-channels.ts';
import type { ComposerReport } from './composer-check.ts';
import { composerChecks, composerStatus } from './composer-checks-view.ts';
import { problemList } from './problem-list.ts';
import type { ComposerForm, ComposerWhen } from './composer-form.ts';
import type { ComposerMedia } from './composer-media.ts';
import { mediaPicker } from './media-picker-view.ts';
import { posterPicker } from './poster-picker-view.ts';
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
const inPlace = html` hx-post="/compose" hx-select="#composer-page" hx-target="#composer-page" hx-swap="outerHTML"`;

/**
 * Enter in a field submits with the form's first submit button: this one, so that it checks the
 * post rather than removing a part or sending it. Off screen and out of the tab order.
 */
const defaultAction = (t: Translate): SafeHtml => html`<button type="submit" name="intent" value="check"
 class="default-action" tabindex="-1" aria-hidden="true">${t('compose.check')}</button>`;

function partField(text: string, index: number, view: ComposerView, t: Translate): SafeHtml {
  const label = index === 0 ? t('compose.partFirst') : t('compose.partReply', { number: index + 1 });
  const remove = view.form.part.length > 1
    ? html`<button type="submit" name="intent" value="remove-part-${index}"${inPlace}>
${t('compose.removePart', { number: index + 1 })}</button>`
    : '';
  return html`<div class="part">
<label for="part-${index}">${label}</label>
<textarea id="part-${index}" name="part" rows="5" aria-describedby="part-problems-${index}"${
  view.focusPart === index ? html` autofocus` : ''}>${text}</textarea>
${problemList(`part-problems-${index}`, view.report?.parts.get(index) ?? [])}
<div class="part-tools">${remove}</div>
</div>`;
}

function channelChoice(
  channel: ComposerChannel, chosen: ReadonlySet<string>, view: ComposerView, t: Translate,
): SafeHtml {
  const state = channel.usable ? '' : html` <span class="muted">${t('compose.needsReconnecting')}</span>`;
  const settings = channelSettingsForm(channel, view.form.settings[channel.id] ?? {},
    view.report?.settings.get(channel.id) ?? new Map<string, string[]>(), t);
  return html`<li class="channel-choice"><label>
<input type="checkbox" name="channel" value="${channel.id}"${chosen.has(channel.id) ? html` checked` : ''}>
${channelAvatar(channel, 'channel-avatar')} ${channel.name}
<span class="muted">${channel.platform.displayName}, ${channel.timeZone}</span>${state}</label>
${settings}</li>`;
}

function channelPicker(view: ComposerView, t: Translate): SafeHtml {
  const chosen = new Set(view.form.channel);
  const groups = view.groups.map((group) => html`<div class="channel-group">
<h3>${group.customer ?? t('compose.withoutCustomer')}</h3>
<ul class="choices">${group.channels.map((channel) => channelChoice(channel, chosen, view, t))}</ul></div>`);
  return html`<fieldset><legend>${t('compose.channels')}</legend>
${groups}
${problemList('picker-problems', view.report?.picker ?? [])}
</fieldset>`;
}

const whens: Record<ComposerWhen, PlainKey> = {
  now: 'compose.whenNow',
  at: 'compose.whenAt',
  queue: 'compose.whenQueue',
  draft: 'compose.whenDraft',
};

function schedulePicker(view: ComposerView, t: Translate): SafeHtml {
  const options = (Object.keys(whens) as ComposerWhen[]).map((when) => html`<li><label>
<input type="radio" name="when" value="${when}"${view.form.when === when ? html` checked` : ''}>
${t(whens[when])}</label></li>`);
  return html`<fieldset><legend>${t('compose.when')}</legend>
<ul class="choices">${options}</ul>
<label for="at">${t('compose.dateLabel')}</label>
<input id="at" name="at" type="datetime-local" value="${view.form.at}" aria-describedby="schedule-problems">
<label for="repeat-days">${t('compose.repeatLabel')}</label>
<input id="repeat-days" name="repeatDays" type="number" min="1" max="365" inputmode="numeric"
 value="${view.form.repeatDays}" aria-describedby="schedule-problems">
<ul class="choices"><li><label><input type="checkbox" name="shortLink" value="on"${view.form.shortLink === 'on'
  ? html` checked` : ''}> ${t('compose.shortenLinks')}</label></li></ul>
${problemList('schedule-problems', view.report?.schedule ?? [])}
</fieldset>`;
}

/** Which post the form edits or duplicates, linked to its page; an edit carries the post's id in the form. */
function originLine(origin: ComposerOrigin | undefined, t: Translate): SafeHtml {
  if (origin === undefined) return html``;
  const name = origin.excerpt === '' ? origin.postId : t('compose.quotedExcerpt', { excerpt: origin.excerpt });
  const post = html`<a href="/posts/${origin.postId}">${name}</a>`;
  const note = origin.note === null ? '' : html` ${origin.note}`;
  const says = origin.mode === 'edit'
    ? t.markup('compose.editing', { post })
    : t.markup('compose.duplicating', { post });
  return html`<p class="notice" id="composer-origin">${says}${note}</p>`;
}

/** The composer: the form on the left, each chosen channel's count, problems and preview beside it. */
export function composerBody(ctx: DashboardContext, view: ComposerView): SafeHtml {
  const t = words(ctx);
  if (view.groups.length === 0) {
    const link = html`<a href="/channels">${t('compose.channels')}</a>`;
    return html`<p>${t.markup('compose.connectFirst', { link })}</p>`;
  }
  const problem = view.problem === undefined ? '' : html`<p class="error" role="alert">${view.problem}</p>`;
  const notice = view.notice === undefined ? '' : html`<p class="notice">${view.notice}</p>`;
  const edited = view.form.post === undefined ? '' : html`<input type="hidden" name="post" value="${view.form.post}">`;
  // A duplicate names its source, so that sending keeps the source's tags and delays.
  const source = view.form.copyOf === undefined
    ? ''
    : html`<input type="hidden" name="copyOf" value="${view.form.copyOf}">`;
  return html`<div id="composer-page">${problem}${originLine(view.origin, t)}${notice}<div class="composer">
<form id="composer" method="post" action="/compose">${csrfField(ctx)}${edited}${source}
${defaultAction(t)}
<fieldset><legend>${t('compose.text')}</legend>
${view.form.part.map((text, index) => partField(text, index, view, t))}
<button type="submit" name="intent" value="add-part"${inPlace}>${t('compose.addPart')}</button>
</fieldset>
${mediaPicker(view.form, view.library, view.report?.media ?? [], t)}
${posterPicker(view.form, view.library, t)}
${channelPicker(view, t)}
${schedulePicker(view, t)}
<p><button type="submit" name="intent" value="send" class="primary">${t('compose.send')}</button>
<button type="submit" name="intent" value="check">${t('compose.check')}</button></p>
</form>
<div><h2>${t('compose.perChannel')}</h2>
<p id="composer-status" role="status">${composerStatus(view.report, view.paused ?? null, t)}</p>
<div id="composer-checks" hx-post="/compose/check" hx-include="#composer"
 hx-trigger="input delay:300ms from:#composer" hx-sync="this:replace">
${composerChecks(view.report, previewParts(view.form, view.library), t)}
</div></div>
</div></div>`;
}
