import { z } from 'zod';
import { mastodonTextLength } from '../kit/mastodon-text-length.ts';
import { mediaSizeProblems } from '../kit/media-size-limits.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Fields of POST /api/v1/statuses that SPS passes through; the adapter sends them as they are. */
export const mastodonSettings = z.object({
  visibility: z.enum(['public', 'unlisted', 'private', 'direct']).optional().describe('Who can see the status'),
  spoiler_text: z
    .string()
    .max(500)
    .optional()
    .describe('Content warning shown before the text; it counts towards the 500 characters'),
  sensitive: z.boolean().optional().describe('Hide media behind a warning'),
  language: z
    .string()
    .regex(/^[a-z]{2}$/, 'must be an ISO 639-1 code such as "en"')
    .optional()
    .describe('ISO 639-1 language of the status'),
});

/** The default `max_characters`; instances may allow more (see the instanceLimits tool). */
const maxCharacters = 500;

/** Mastodon's default upload limits (MediaAttachment); instances rarely raise them. */
const sizeLimits = { image: 16 * 1024 * 1024, video: 99 * 1024 * 1024 };

/** Types a Mastodon instance takes by default (MediaAttachment); SPS also stores BMP and TIFF, which it refuses. */
const acceptedMimeTypes = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/heic',
  'image/heif',
  'video/mp4',
  'video/x-m4v',
  'video/quicktime',
  'video/webm',
  'video/ogg',
]);

/** Facts: ../shared/platforms/open-and-community.md, section 2 (Mastodon). */
export const mastodon = definePlatform({
  identifier: 'mastodon',
  displayName: 'Mastodon',
  group: 'social',
  textLimit: maxCharacters,
  textCounting: 'mastodon',
  replies: 'thread',
  mediaRules:
    'Up to 4 images, or 1 video; images and a video cannot be mixed. ' +
    'JPEG, PNG, GIF, WebP, AVIF, HEIC; MP4, MOV, WebM.',
  rules:
    'Posts are statuses on the connected instance. Thread parts reply to the previous part. ' +
    'The text and the content warning (spoiler_text) share 500 characters; each link counts as 23. ' +
    'The instance may set its own character and media limits.',
  settings: mastodonSettings,
  tools: [
    {
      methodName: 'instanceLimits',
      description: 'Reads the instance\'s own limits (characters, media per status, accepted media types).',
      dataSchema: [],
    },
  ],
  checkPost({ settings, parts, textLimit }) {
    // The adapter sends the settings with every part, so each status carries the content warning.
    const warning = settings.spoiler_text ?? '';
    const warningLength = warning === '' ? 0 : mastodonTextLength(warning);
    return parts.flatMap((part, index) => {
      const problems: string[] = [];
      const length = mastodonTextLength(part.text) + warningLength;
      const name = `part ${index + 1}`;
      if (warningLength > 0 && length > textLimit) {
        problems.push(
          `${name} has ${length} characters with its content warning (spoiler_text); ` +
            `Mastodon allows ${textLimit} for both together`,
        );
      }
      const { images, videos, total } = countMedia(parts, index);
      if (videos > 1) problems.push(`${name} has ${videos} videos; Mastodon takes 1 video per status`);
      else if (videos === 1 && images > 0) {
        problems.push(`${name} mixes images and a video; Mastodon takes either up to 4 images or 1 video`);
      } else if (total > 4) problems.push(`${name} has ${total} media; Mastodon takes at most 4`);
      const types = new Set(part.media.map((item) => item.mimeType));
      const refused = [...types].filter((type) => !acceptedMimeTypes.has(type));
      if (refused.length > 0) problems.push(`${name} has media Mastodon does not take (${refused.join(', ')})`);
      return problems;
    }).concat(mediaSizeProblems(parts, sizeLimits, 'Mastodon'));
  },
});
