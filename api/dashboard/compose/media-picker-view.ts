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
  return html`<label for="media-${media.id}-part">${t('compose.attachTo')}</label>
<select id="media-${media.id}-part" name="media[${media.id}][part]">
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
 * The post's media: the library's newest files to attach to a part, and (with JavaScript) an upload
 * zone that takes files dropped or chosen, shows their progress and adds them here.
 */
export function mediaPicker(
  form: ComposerForm,
  library: readonly ComposerMedia[],
  problems: readonly string[],
  t: Translate,
): SafeHtml {
  const unused = { part: '', alt: '' };
  const tiles = library.map((media) => mediaTile(media, form.part.length, form.media[media.id] ?? unused, t));
  return html`<fieldset><legend>${t('compose.media')}</legend>
<div class="media-drop" id="media-drop" hidden>
<label for="media-file">${t('compose.uploadLabel')}</label>
<input id="media-file" type="file" accept="image/*,video/mp4" multiple>
<p class="muted">${t('compose.dropHint')}</p>
<ul class="uploads" id="uploads" aria-live="polite"></ul>
</div>
${library.length === 0 ? html`<p class="muted" id="media-empty">${t('compose.libraryEmpty')}</p>` : ''}
<ul class="media-grid" id="media-grid">${tiles}</ul>
${problemList('media-problems', problems)}
</fieldset>`;
}
