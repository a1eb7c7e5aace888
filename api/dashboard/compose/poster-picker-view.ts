import { posterTypes } from '../../../shared/domain/posts/post-posters.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Translate } from '../i18n/translate.ts';
import { mediaPicture } from '../media-picture.ts';
import { mediaName } from './channel-preview.ts';
import type { ComposerForm } from './composer-form.ts';
import type { ComposerMedia } from './composer-media.ts';

/**
 * Images that may be a poster: ready JPEG or PNG files of the library shown. Their size (2 MB at
 * most) is judged by POST /posts, which the composer's check and send go through.
 */
function posterImages(library: readonly ComposerMedia[]): ComposerMedia[] {
  return library.filter((media) => media.kind === 'image' && media.status === 'ready'
    && posterTypes.includes(media.mimeType));
}

/**
 * One video's poster: its own frame, or one of the images. A poster chosen before that the library
 * shown does not hold (an edited post's, an older file's) stays chosen under a name of its own; the
 * video's frame sent back by the API is no choice.
 */
function posterTile(video: ComposerMedia, images: readonly ComposerMedia[], form: ComposerForm, t: Translate) {
  const given = form.media[video.id]?.poster ?? '';
  const chosen = given === video.picture ? '' : given;
  const known = chosen === '' || images.some((image) => image.path === chosen);
  const options = images.map((image) => html`<option value="${image.path}"${
    image.path === chosen ? html` selected` : ''}>${mediaName(image, t)}</option>`);
  const kept = known ? '' : html`<option value="${chosen}" selected>${t('compose.posterKept')}</option>`;
  const shown = chosen === '' ? video.picture : chosen;
  return html`<li class="media-tile poster-tile"><figure>${mediaPicture(shown, true, '')}
<figcaption>${mediaName(video, t)}</figcaption></figure>
<label for="media-${video.id}-poster">${t('compose.posterOf', { file: mediaName(video, t) })}</label>
<select id="media-${video.id}-poster" name="media[${video.id}][poster]">
<option value="">${t('compose.posterFrame')}</option>${kept}${options}</select>
</li>`;
}

/**
 * The posters of the library's videos: a select per video, sent with the form (no JavaScript
 * needed), so a video attached to a part goes out with the image chosen as its cover. Nothing
 * without a video; a hint without an image to choose.
 */
export function posterPicker(form: ComposerForm, library: readonly ComposerMedia[], t: Translate): SafeHtml {
  const videos = library.filter((media) => media.kind === 'video');
  if (videos.length === 0) return html``;
  const images = posterImages(library);
  const tiles = images.length === 0 && videos.every((video) => (form.media[video.id]?.poster ?? '') === '')
    ? html`<p class="muted">${t('compose.posterNoImages')}</p>`
    : html`<ul class="media-grid">${videos.map((video) => posterTile(video, images, form, t))}</ul>`;
  return html`<fieldset id="video-posters"><legend>${t('compose.posters')}</legend>
<p class="muted">${t('compose.postersHint')}</p>
${tiles}
</fieldset>`;
}
