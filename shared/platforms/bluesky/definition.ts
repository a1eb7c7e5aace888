import { z } from 'zod';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Optional fields of an app.bsky.feed.post record that SPS lets callers set. */
export const blueskySettings = z.object({
  langs: z
    .array(z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as "en" or "pt-BR"'))
    .max(3)
    .optional()
    .describe('Languages of the post as BCP 47 tags (at most 3)'),
  tags: z
    .array(
      z
        .string()
        .min(1)
        .max(64)
        .regex(/^[^#\s]/, 'must not start with "#" or a space'),
    )
    .max(8)
    .optional()
    .describe('Extra hashtags stored on the record but not shown in the text, without "#" (at most 8)'),
});

/** Besides 300 graphemes, a post's text may not exceed this many UTF-8 bytes. */
const maxTextBytes = 3000;
/** app.bsky.embed.images `maxSize` (the lexicon the PDS validates records with; it was 1 MB before). */
export const maxImageBytes = 2_000_000;
/**
 * A video goes to the PDS with uploadBlob, whose cap on bsky.social is 50 MiB (the docs); the
 * video lexicon would allow 300 MB, which only the separate video service takes.
 */
export const maxVideoBytes = 52_428_800;

/** Facts: ../shared/platforms/open-and-community.md, section 1 (Bluesky). */
export const bluesky = definePlatform({
  identifier: 'bluesky',
  displayName: 'Bluesky',
  group: 'social',
  textLimit: 300,
  textCounting: 'graphemes',
  replies: 'thread',
  mediaRules:
    'Up to 4 images of at most 2 MB each, or 1 MP4 video of at most 50 MB (3 minutes); '
    + 'images and a video cannot be mixed.',
  rules:
    'Posts are app.bsky.feed.post records on the account\'s PDS. Text counts user-perceived characters '
    + '(an emoji sequence is one) and may also not pass 3000 bytes. Links, mentions and hashtags in the text '
    + 'become facets. Thread parts reply to the previous part and keep the first as root.',
  settings: blueskySettings,
  tools: [
    {
      methodName: 'searchActors',
      description: 'Finds accounts to mention by handle or display name.',
      dataSchema: [{ key: 'q', type: 'string', description: 'Search text' }],
    },
    {
      methodName: 'resolveHandle',
      description: 'Turns a handle into the DID that mentions point at.',
      dataSchema: [{ key: 'handle', type: 'string', description: 'Handle such as alice.bsky.social' }],
    },
  ],
  checkPost({ parts }) {
    return parts.flatMap((part, index) => {
      const problems: string[] = [];
      const bytes = Buffer.byteLength(part.text, 'utf8');
      if (bytes > maxTextBytes)
        problems.push(`part ${index + 1} has ${bytes} bytes of text; Bluesky takes at most ${maxTextBytes}`);
      const { images, videos } = countMedia(parts, index);
      if (videos > 1)
        problems.push(`part ${index + 1} has ${videos} videos; Bluesky takes at most 4 images or 1 video`);
      else if (videos === 1 && images > 0)
        problems.push(`part ${index + 1} mixes images and a video; Bluesky takes at most 4 images or 1 video`);
      else if (images > 4)
        problems.push(`part ${index + 1} has ${images} images; Bluesky takes at most 4 images or 1 video`);
      for (const item of part.media) {
        if (item.kind === 'video' && item.mimeType !== 'video/mp4')
          problems.push(`part ${index + 1} has a ${item.mimeType} video; Bluesky takes MP4 videos only`);
        const size = item.sizeBytes;
        if (size === null) continue;
        if (item.kind === 'image' && size > maxImageBytes) {
          problems.push(
            `part ${index + 1} has an image of ${size} bytes; Bluesky takes images of at most ${maxImageBytes} bytes`,
          );
        }
        if (item.kind === 'video' && size > maxVideoBytes) {
          problems.push(
            `part ${index + 1} has a video of ${size} bytes; `
              + `Bluesky takes videos of at most ${maxVideoBytes} bytes (50 MB)`,
          );
        }
      }
      return problems;
    });
  },
});
