import { html, type SafeHtml } from '../html.ts';
import type { Translate } from '../i18n/translate.ts';
import { mediaName } from './channel-preview.ts';
import type { ComposerForm } from './composer-form.ts';
import type { ComposerMedia } from './composer-media.ts';
import { problemList } from './problem-list.ts';
import { mediaPicture } from '../media-picture.ts';

/** Where a file goes: not attached, or one part; `parts` is how many parts the post has. */
function partChoice(media: ComposerMedia, parts: number, chosen: string, t: Translate): SafeHtml {
  const options = Array.from({ length: parts }, (_unused, index) => String(index)).map((value) =>
    html`<option value="${value}"${value === chosen ? html` selected` : ''}>${
      t('compose.partOption', { number: Number(value) + 1 })}</option>`);
  // The first file of a page just loaded takes the cursor, as the control that loaded it is replaced.
  const focus = media.firstLoaded === true ? html` autofocus` : '';
  return html`<label for="media-${media.id}-part">${t('compose.attachTo')}</label>
<select id="media-${media.id}-part" name="media[${media.id}][part]"${focus}>
<option value="">${t('compose.notAttached')}</option>${options}</select>`;
}

/** One file of the library: its picture, where it goes, its alt text. */
export function mediaTile(
  media: ComposerMedia, parts: number, use: { part: string; alt: string }, t: Translate,
): SafeHtml {
  const shown = mediaPicture(media.picture, media.kind === 'video', '');
  const named = mediaName(media, t);
  const caption = media.status === 'pending' ? t('compose.stillProcessing', { file: named }) : named;
  return html`<li class="media-tile"><figure>${shown}
<figcaption>${caption}</figcaption></figure>
${partChoice(media, parts, use.part, t)}
<label for="media-${media.id}-alt">${t('compose.altText')}</label>
<input id="media-${media.id}-alt" name="media[${media.id}][alt]" maxlength="1500" value="${use.alt}">
</li>`;
}

/**
 * "Show older files", while the library has files older than `before` (its cursor). With htmx it
 * asks GET /compose/library for the next tiles and adds them to the grid (the answer replaces this
 * control, out of band, with the next page's); without JavaScript it posts the form, kept as typed,
 * and the composer comes back with the next page added. The hidden cursor travels with the form, so
 * a part button or a refused send keeps the files shown and the place to go on from. `shown` names
 * the files older than the cursor already in the grid (an edited post's), left out of the next pages.
 */
export function moreMedia(
  before: string | null, parts: number, shown: readonly string[], t: Translate, outOfBand = false,
): SafeHtml {
  const swap = outOfBand ? html` hx-swap-oob="true"` : '';
  if (before === null) return html`<div id="media-more"${swap}></div>`;
  const query = `before=${before}&parts=${String(parts)}${shown.length === 0 ? '' : `&shown=${shown.join(',')}`}`;
  return html`<div id="media-more"${swap}><input type="hidden" name="mediaBefore" value="${before}">
<button type="submit" name="intent" value="more-media" hx-get="/compose/library?${query}" hx-target="#media-grid"
 hx-swap="beforeend" hx-disabled-elt="this">${t('compose.moreMedia')}</button></div>`;
}

/**
 * The post's media: the library's newest files to attach to a part, older ones a page at a time,
 * and (with JavaScript) an upload zone that takes files dropped or chosen, shows their progress and
 * adds them here.
 */
export function mediaPicker(
  form: ComposerForm,
  library: readonly ComposerMedia[],
  problems: readonly string[],
  t: Translate,
): SafeHtml {
  const unused = { part: '', alt: '' };
  const tiles = library.map((media) => mediaTile(media, form.part.length, form.media[media.id] ?? unused, t));
  const before = form.mediaBefore ?? null;
  // Ids of one length in lowercase hexadecimal compare as the ObjectIds they are.
  const shown = before === null ? [] : library.filter((media) => media.id < before).map((media) => media.id);
  return html`<fieldset><legend>${t('compose.media')}</legend>
<div class="media-drop" id="media-drop" hidden>
<label for="media-file">${t('compose.uploadLabel')}</label>
<input id="media-file" type="file" accept="image/*,video/mp4" multiple>
<p class="muted">${t('compose.dropHint')}</p>
<ul class="uploads" id="uploads" aria-live="polite"></ul>
</div>
${library.length === 0 ? html`<p class="muted" id="media-empty">${t('compose.libraryEmpty')}</p>` : ''}
<ul class="media-grid" id="media-grid">${tiles}</ul>
${moreMedia(before, form.part.length, shown, t)}
${problemList('media-problems', problems)}
</fieldset>`;
}
