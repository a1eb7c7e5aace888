import type { MediaUse } from '../../../shared/domain/media/media-library.ts';
import type { MediaView } from '../../../shared/domain/media/media-view.ts';
import { describeBytes } from '../../../shared/media/media-types.ts';
import { html, type SafeHtml } from '../html.ts';
import type { PlainKey, Translate } from '../i18n/translate.ts';
import { csrfField } from '../layout.ts';
import type { DashboardState } from '../state.ts';
import { mediaPicture } from '../media-picture.ts';

/** A size a person reads: kilobytes below a megabyte, as the API's limits are written above. */
function sizeText(t: Translate, bytes: number | null): string {
  if (bytes === null) return t('media.unknownSize');
  return bytes < 1024 ** 2 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : describeBytes(bytes);
}

function facts(t: Translate, media: MediaView): string {
  const parts = [media.mimeType ?? t('media.unknownType'), sizeText(t, media.size)];
  if (media.width !== undefined && media.height !== undefined) parts.push(`${media.width} × ${media.height}`);
  if (media.durationSeconds !== undefined) {
    const seconds = media.durationSeconds.toLocaleString(t.locale, {
      minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false,
    });
    parts.push(`${seconds} s`);
  }
  return parts.join(' · ');
}

function postLinks(t: Translate, label: PlainKey, ids: readonly string[]): SafeHtml | '' {
  if (ids.length === 0) return '';
  const links = ids.map((id, index) =>
    html`${index === 0 ? '' : ', '}<a href="/posts/${id}">${t('media.postLink', { number: index + 1 })}</a>`);
  return html`<li>${t(label)}: ${links}</li>`;
}

function usesText(t: Translate, use: MediaUse | undefined): SafeHtml {
  if (use === undefined || use.scheduled.length + use.drafts.length + use.published.length === 0) {
    return html`<p class="muted">${t('media.notUsed')}</p>`;
  }
  return html`<ul class="media-uses">${postLinks(t, 'media.usedScheduled', use.scheduled)}${
    postLinks(t, 'media.usedDrafts', use.drafts)}
${postLinks(t, 'media.usedPublished', use.published)}</ul>`;
}

/** One file of the library: its picture, its facts, where it is used, and its delete button. */
export function libraryTile(
  ctx: { state: DashboardState }, t: Translate, media: MediaView, use: MediaUse | undefined,
): SafeHtml {
  const video = media.mimeType?.startsWith('video/') === true;
  const shown = mediaPicture(media.thumbnail ?? (video ? null : media.path), video, media.alt ?? '');
  const progress = media.status === 'pending'
    ? t('media.processing')
    : t('media.failed', { error: media.error ?? t('media.unreadable') });
  const state = media.status === 'ready' ? '' : html` <strong>${progress}</strong>`;
  const name = media.originalName ?? media.name;
  const held = (use?.scheduled.length ?? 0) > 0;
  return html`<li class="media-tile"><figure>${shown}
<figcaption><span class="media-name">${name}</span>${state}<br>
<span class="muted">${facts(t, media)}</span></figcaption></figure>
${usesText(t, use)}
<form method="post" action="/media/${media.id}/delete">${csrfField(ctx)}
<button type="submit" class="danger" aria-label="${t('media.deleteNamed', { name })}"${
  held ? html` aria-describedby="held-${media.id}"` : ''}>${t('media.delete')}</button>
${held ? html`<span id="held-${media.id}" class="muted"> ${t('media.heldByScheduled')}</span>` : ''}
</form></li>`;
}

/** The upload zone, shown by media-upload.js: uploads go through the composer's own upload steps. */
export function uploadZone(ctx: { state: DashboardState }, t: Translate): SafeHtml {
  return html`<form id="media-upload" class="media-drop" hidden>${csrfField(ctx)}
<label for="media-upload-file">${t('media.uploadLabel')}</label>
<input id="media-upload-file" type="file" accept="image/*,video/mp4" multiple>
<ul class="uploads" id="media-uploads" aria-live="polite"></ul>
</form>
<noscript><p class="muted">${t('media.uploadNeedsScript')}</p></noscript>`;
}
