import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { mediaSizeProblems } from '../kit/media-size-limits.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Fields of the video resource (snippet and status) SPS sends with the upload; the post text is the description. */
export const youtubeSettings = z.object({
  title: z
    .string(whenMissing('a YouTube video needs a title'))
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
  categoryId: z
    .string()
    .regex(/^\d+$/, 'must be a numeric YouTube category id')
    .optional()
    .describe('YouTube category of the video'),
  defaultLanguage: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, 'must be a language code such as "en" or "pt-BR"')
    .optional()
    .describe('Language of the title and description'),
  selfDeclaredMadeForKids: z
    .boolean()
    .optional()
    .describe('Declare the video made for children (comments are then disabled)'),
  embeddable: z.boolean().optional().describe('Allow the video to be embedded on other sites'),
  license: z.enum(['youtube', 'creativeCommon']).optional().describe('License of the video'),
  containsSyntheticMedia: z.boolean().optional().describe('Declare realistic altered or synthetic content'),
  notifySubscribers: z.boolean().optional().describe('Notify the channel\'s subscribers of the new video'),
  playlistId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{2,64}$/, 'must be a YouTube playlist id (the playlists tool lists them)')
    .optional()
    .describe('Playlist of the channel the video is added to once uploaded'),
});

/** thumbnails.set takes JPEG or PNG images of at most 2 MB. */
export const thumbnailTypes: readonly string[] = ['image/jpeg', 'image/png'];
export const maxThumbnailBytes = 2 * 1024 * 1024;

/** Facts: ../shared/platforms/oauth-majors.md, section 7 (YouTube). */
export const youtube = definePlatform({
  identifier: 'youtube',
  displayName: 'YouTube',
  group: 'video',
  // The description limit is 5,000 bytes, so accented and non-Latin text holds fewer characters.
  textLimit: 5000,
  textCounting: 'utf8-bytes',
  replies: 'none',
  mediaRules: 'Exactly 1 MP4 video per post, and optionally 1 JPEG or PNG image of at most 2 MB beside it as the '
    + 'video\'s custom thumbnail.',
  rules:
    'Every post uploads one video to the connected channel: the title setting is required and the post text '
    + 'becomes the description (at most 5,000 bytes). The poster chosen for the video (image[].thumbnail), else '
    + 'an image attached beside it, becomes its custom thumbnail; a channel not allowed custom thumbnails keeps '
    + 'the video published with YouTube\'s own, and the notification says so. The video is added to the '
    + 'playlist named in playlistId. There are no text-only posts and no threads. Videos longer than 15 minutes '
    + 'need a verified channel, and videos uploaded by an unaudited API project stay private.',
  settings: youtubeSettings,
  tools: [
    {
      methodName: 'playlists',
      description: 'Lists the playlists of the connected channel, to fill playlistId.',
      dataSchema: [],
    },
  ],
  checkPost({ parts }) {
    const problems: string[] = [];
    const { images, videos } = countMedia(parts);
    if (videos !== 1 || images > 1) {
      problems.push(`part 1 has ${images} images and ${videos} videos; YouTube takes exactly 1 video`
        + (images > 1 ? ' and at most 1 image, its thumbnail' : ''));
    }
    for (const item of parts[0]?.media ?? []) {
      if (item.kind === 'video' && item.mimeType !== 'video/mp4') {
        problems.push(`part 1 has a ${item.mimeType} video; YouTube posts take MP4 videos`);
      }
      if (item.kind === 'image' && !thumbnailTypes.includes(item.mimeType)) {
        problems.push(`part 1 has a ${item.mimeType} image; a YouTube thumbnail must be a JPEG or PNG image`);
      }
    }
    return [...problems, ...mediaSizeProblems(parts, { image: maxThumbnailBytes }, 'YouTube')];
  },
});
