import type { MediaReference } from '../../../shared/domain/posts/post-input.ts';
import type { PostWithThread } from '../../../shared/domain/posts/post-queries.ts';
import type { ComposerForm } from './composer-form.ts';
import type { ComposerMedia } from './composer-media.ts';

/**
 * A video's poster in the composer: `media[<video id>][poster]` holds the path of the library
 * image chosen (poster-picker-view.ts), '' for the video's own frame. The path is what POST /posts
 * stores as `image[].thumbnail` and judges (shared/domain/posts/post-posters.ts): the composer
 * sends it as chosen and shows the domain's refusal with the media problems.
 */

/** The poster the form chose for `media`, as its `image[]` item's `thumbnail`; nothing for an image. */
export function posterOf(form: ComposerForm, media: ComposerMedia): Pick<MediaReference, 'thumbnail'> {
  const poster = form.media[media.id]?.poster ?? '';
  return media.kind === 'video' && poster !== '' ? { thumbnail: poster } : {};
}

/**
 * The form filled from a stored post (composer-origin.ts prefilledForm) with each video's stored
 * poster, so an edit or a duplicate keeps it rather than sending the video without it.
 */
export function withStoredPosters(form: ComposerForm, found: PostWithThread): ComposerForm {
  const posters = new Map(found.parts.flatMap((part) => part.media.flatMap((item) =>
    (item.thumbnail ?? '') === '' ? [] : [[item.id, item.thumbnail ?? ''] as const])));
  if (posters.size === 0) return form;
  const media = Object.fromEntries(Object.entries(form.media).map(([id, use]) => {
    const poster = posters.get(id);
    return [id, poster === undefined ? use : { ...use, poster }];
  }));
  return { ...form, media };
}
