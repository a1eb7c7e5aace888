import { mediaOfPart, type ComposerForm } from './composer-form.ts';
import type { ComposerMedia } from './composer-media.ts';

/** One part as the previews show it: its text and the pictures of its media. */
export interface PreviewPart {
  text: string;
  media: { picture: string | null; alt: string; kind: ComposerMedia['kind']; mimeType: string; name: string }[];
}

export function previewParts(form: ComposerForm, library: readonly ComposerMedia[]): PreviewPart[] {
  return form.part.map((text, index) => ({
    text,
    media: mediaOfPart(form, index).flatMap(({ id, alt }) => {
      const media = library.find((item) => item.id === id);
      if (media === undefined) return [];
      return [{ picture: media.picture, alt, kind: media.kind, mimeType: media.mimeType, name: media.name }];
    }),
  }));
}
