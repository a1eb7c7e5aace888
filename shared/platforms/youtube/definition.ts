import { z } from 'zod';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Fields of the video resource (snippet and status) SPS sends with the upload; the post text is the description. */
export const youtubeSettings = z.object({
  title: z
    .string()
    .trim()
    .min(2)
    .max(100)
    .regex(/^[^<>]*$/, 'must not contain < or >')
    .describe('Title of the video, 2 to 100 characters, without < or >'),
  privacyStatus: z.enum(['public', 'unlisted', 'private']).optional().describe('Who can watch the video'),
  tags: z
    .array(z.string().min(1).max(100))
    .refine((tags) => tags.join(',').length <= 500, 'must hold at most 500 characters in all')
    .optional()
    .describe('Keywords of the video, at most 500 characters in all'),
  categoryId: z.string().regex(/^\d+$/, 'must be a numeric YouTube category id').optional().describe('YouTube category of the video'),
  defaultLanguage: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, 'must be a language code such as "en" or "pt-BR"')
    .optional()
    .describe('Language of the title and description'),
  selfDeclaredMadeForKids: z.boolean().optional().describe('Declare the video made for children (comments are then disabled)'),
  embeddable: z.boolean().optional().describe('Allow the video to be embedded on other sites'),
  license: z.enum(['youtube', 'creativeCommon']).optional().describe('License of the video'),
  containsSyntheticMedia: z.boolean().optional().describe('Declare realistic altered or synthetic content'),
  notifySubscribers: z.boolean().optional().describe('Notify the channel\'s subscribers of the new video'),
});

/** Facts: ../shared/platforms/oauth-majors.md, section 7 (YouTube). */
export const youtube = definePlatform({
  identifier: 'youtube',
  displayName: 'YouTube',
  group: 'video',
  // The description limit is 5,000 bytes, so accented and non-Latin text holds fewer characters.
  textLimit: 5000,
  textCounting: 'utf8-bytes',
  replies: 'none',
  mediaRules: 'Exactly 1 MP4 video per post; images are not accepted.',
  rules:
    'Every post uploads one video to the connected channel: the title setting is required and the post text becomes the description (at most 5,000 bytes). There are no text-only posts and no threads. Videos longer than 15 minutes need a verified channel, and videos uploaded by an unaudited API project stay private.',
  settings: youtubeSettings,
  tools: [],
  checkPost({ parts }) {
    const problems: string[] = [];
    const { images, videos } = countMedia(parts);
    if (videos !== 1 || images > 0) problems.push(`part 1 has ${images} images and ${videos} videos; YouTube takes exactly 1 video`);
    for (const item of parts[0]?.media ?? []) {
      if (item.kind === 'video' && item.mimeType !== 'video/mp4') problems.push(`part 1 has a ${item.mimeType} video; YouTube posts take MP4 videos`);
    }
    return problems;
  },
});
