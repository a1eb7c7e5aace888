import { html, webUrl, type SafeHtml } from './html.ts';

/**
 * A media tile's picture: the file or its poster frame, or, when the worker has made none yet (a
 * video still processing, a failed file), a mark of its kind in the same box so the grid keeps its
 * shape. Shared by the composer's library and the media library page.
 */
export function mediaPicture(picture: string | null, video: boolean, alt: string): SafeHtml {
  const url = webUrl(picture);
  return url === null
    ? html`<span class="media-kind-mark" aria-hidden="true">${video ? '▶' : '?'}</span>`
    : html`<img src="${url}" alt="${alt}" referrerpolicy="no-referrer">`;
}
