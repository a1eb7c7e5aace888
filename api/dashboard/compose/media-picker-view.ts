import { html, type SafeHtml } from '../html.ts';
import type { ComposerForm } from './composer-form.ts';
import type { ComposerMedia } from './composer-media.ts';
import { problemList } from './problem-list.ts';
import { mediaPicture } from '../media-picture.ts';

/** Where a file goes: not attached, or one part; `parts` is how many parts the post has. */
function partChoice(media: ComposerMedia, parts: number, chosen: string): SafeHtml {
  const options = Array.from({ length: parts }, (_unused, index) => String(index)).map((value) =>
    html`<option value="${value}"${value === chosen ? html` selected` : ''}>Part ${Number(value) + 1}</option>`);
  return html`<label for="media-${media.id}-part">Attach to</label>
<select id="media-${media.id}-part" name="media[${media.id}][part]">
<option value="">Not attached</option>${options}</select>`;
}

/** One file of the library: its picture, where it goes, its alt text. */
export function mediaTile(media: ComposerMedia, parts: number, use: { part: string; alt: string }): SafeHtml {
  const shown = mediaPicture(media.picture, media.kind === 'video', '');
  const state = media.status === 'pending' ? ' (still being processed)' : '';
  return html`<li class="media-tile"><figure>${shown}
<figcaption>${media.kind === 'video' ? 'Video' : 'Image'}: ${media.name}${state}</figcaption></figure>
${partChoice(media, parts, use.part)}
<label for="media-${media.id}-alt">Alt text</label>
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
): SafeHtml {
  const unused = { part: '', alt: '' };
  const tiles = library.map((media) => mediaTile(media, form.part.length, form.media[media.id] ?? unused));
  return html`<fieldset><legend>Media</legend>
<div class="media-drop" id="media-drop" hidden>
<label for="media-file">Upload images or an MP4 video</label>
<input id="media-file" type="file" accept="image/*,video/mp4" multiple>
<p class="muted">Or drop files here. They join the media library and are attached to part 1.</p>
<ul class="uploads" id="uploads" aria-live="polite"></ul>
</div>
${library.length === 0 ? html`<p class="muted" id="media-empty">The media library is empty.</p>` : ''}
<ul class="media-grid" id="media-grid">${tiles}</ul>
${problemList('media-problems', problems)}
</fieldset>`;
}
