import { z } from 'zod';
import { countMedia, definePlatform } from './platform.ts';

/** Fields of POST /api/v1/statuses that SPS passes through; the adapter sends them as they are. */
export const mastodonSettings = z.object({
  visibility: z.enum(['public', 'unlisted', 'private', 'direct']).optional().describe('Who can see the status'),
  spoiler_text: z.string().max(500).optional().describe('Content warning shown before the text'),
  sensitive: z.boolean().optional().describe('Hide media behind a warning'),
  language: z.string().regex(/^[a-z]{2}$/, 'must be an ISO 639-1 code such as "en"').optional().describe('ISO 639-1 language of the status'),
});

/** Facts: ../shared/platforms/open-and-community.md, section 2 (Mastodon). */
export const mastodon = definePlatform({
  identifier: 'mastodon',
  displayName: 'Mastodon',
  group: 'social',
  // The default `max_characters`; instances may allow more (see the instanceLimits tool).
  textLimit: 500,
  textCounting: 'code-points',
  replies: 'thread',
  mediaRules: 'Up to 4 images, or 1 video; images and a video cannot be mixed.',
  rules: 'Posts are statuses on the connected instance. Thread parts reply to the previous part. The instance may set its own character and media limits.',
  settings: mastodonSettings,
  tools: [
    { methodName: 'instanceLimits', description: 'Reads the instance\'s own limits (characters, media per status, accepted media types).', dataSchema: [] },
  ],
  checkPost({ parts }) {
    return parts.flatMap((_, index) => {
      const { images, videos, total } = countMedia(parts, index);
      if (videos > 1) return [`part ${index + 1} has ${videos} videos; Mastodon takes 1 video per status`];
      if (videos === 1 && images > 0) return [`part ${index + 1} mixes images and a video; Mastodon takes either up to 4 images or 1 video`];
      if (total > 4) return [`part ${index + 1} has ${total} media; Mastodon takes at most 4`];
      return [];
    });
  },
});
