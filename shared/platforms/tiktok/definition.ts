import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { countMedia, definePlatform, type PostPartFacts } from '../kit/platform-definition.ts';

const photoTypes = ['image/jpeg', 'image/webp'];

/** TikTok counts captions in UTF-16 code units (oauth-majors.md 8.2). */
export const videoCaptionLimit = 2200;
export const photoDescriptionLimit = 4000;
export const photoTitleLimit = 90;

/** A post of photos only: its text goes to TikTok as the description, not as a caption. */
export function isPhotoPost(parts: PostPartFacts[]): boolean {
  const { images, videos } = countMedia(parts);
  return images > 0 && videos === 0;
}

/** Fields of post_info (and post_mode) of TikTok's Content Posting API, under TikTok's names. */
export const tiktokSettings = z.object({
  privacy_level: z
    .enum(
      ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
      whenMissing('a TikTok post needs a privacy_level: who can see it (see the creatorInfo tool)'),
    )
    .describe('Who can see the post; must be one the creator offers (see the creatorInfo tool)'),
  disable_comment: z.boolean().optional().describe('Turn comments off'),
  disable_duet: z.boolean().optional().describe('For a video: turn Duet off'),
  disable_stitch: z.boolean().optional().describe('For a video: turn Stitch off'),
  video_cover_timestamp_ms: z.number().int().min(0).optional()
    .describe('For a video: the cover frame, in milliseconds from the start'),
  title: z.string().max(photoTitleLimit).optional()
    .describe('For photos: the post title (the post text becomes the description)'),
  auto_add_music: z.boolean().optional().describe('For photos: let TikTok add music'),
  brand_content_toggle: z.boolean().optional().describe('Mark the post as a paid partnership promoting another brand'),
  brand_organic_toggle: z.boolean().optional().describe('Mark the post as promoting the creator\'s own business'),
  is_aigc: z.boolean().optional().describe('Label the video as AI-generated content'),
  post_mode: z
    .enum(['DIRECT_POST', 'MEDIA_UPLOAD'])
    .optional()
    .describe('Publish at once (the default) or send to the creator\'s TikTok inbox to finish in the app'),
});

/** Facts: ../shared/platforms/oauth-majors.md, section 8 (TikTok). */
export const tiktok = definePlatform({
  identifier: 'tiktok',
  displayName: 'TikTok',
  group: 'video',
  // A video's caption (post_info.title); a photo post's text is its description, up to 4,000.
  textLimit: videoCaptionLimit,
  textLimitFor: (parts) => (isPhotoPost(parts) ? photoDescriptionLimit : videoCaptionLimit),
  textCounting: 'utf16-units',
  replies: 'none',
  // Photos are pulled by TikTok from their URL (PULL_FROM_URL); videos are uploaded (FILE_UPLOAD).
  mediaByUrl: 'images',
  mediaRules:
    'Either exactly 1 video (up to 10 minutes) or 1 to 35 JPEG or WebP photos; no text-only posts and no mixing.',
  rules:
    'A post is one video or a photo carousel; there are no text-only posts, threads or comments. '
    + 'privacy_level is required and must be one of the options the creator\'s account offers (see the '
    + 'creatorInfo tool); unaudited apps may only post privately (SELF_ONLY). A video\'s text is its caption (up '
    + 'to 2,200 UTF-16 units); photo posts take a title of up to 90 characters and the text as description (up to '
    + '4,000). post_mode MEDIA_UPLOAD sends the post to the creator\'s TikTok inbox to finish in the app instead '
    + 'of publishing it; TikTok takes no caption for an inbox video. TikTok pulls photos from their public URL; '
    + 'videos are uploaded. The creator\'s maximum video length may be shorter than 10 minutes.',
  settings: tiktokSettings,
  tools: [
    {
      methodName: 'creatorInfo',
      description: 'Reads the creator\'s privacy level options, whether comments, Duet and Stitch are off, '
        + 'and the longest video they may post.',
      dataSchema: [],
    },
  ],
  checkPost({ settings, parts }) {
    const problems: string[] = [];
    const media = parts[0]?.media ?? [];
    const { images, videos, total } = countMedia(parts);
    if (total === 0) problems.push('part 1 has no media; TikTok takes 1 video or 1 to 35 photos');
    if (videos > 1 || (videos === 1 && images > 0)) {
      problems.push(`part 1 has ${images} images and ${videos} videos; TikTok takes 1 video, or images only`);
    }
    if (images > 35) problems.push(`part 1 has ${images} images; TikTok takes at most 35 photos`);
    for (const item of media) {
      if (item.kind === 'image' && !photoTypes.includes(item.mimeType)) {
        problems.push(`part 1 has a ${item.mimeType} photo; TikTok takes JPEG or WebP photos`);
      }
      if (item.kind === 'video' && item.durationSeconds !== null && item.durationSeconds > 600) {
        problems.push(`part 1 has a ${item.durationSeconds}-second video; TikTok takes videos of at most 10 minutes`);
      }
    }
    const videoOnly = ['disable_duet', 'disable_stitch', 'video_cover_timestamp_ms', 'is_aigc'] as const;
    if (videos === 0 && images > 0) {
      for (const key of videoOnly) {
        if (settings[key] !== undefined) problems.push(`${key} applies only to a TikTok video, not to photos`);
      }
    }
    if (videos > 0) {
      for (const key of ['title', 'auto_add_music'] as const) {
        if (settings[key] !== undefined) problems.push(`${key} applies only to TikTok photo posts, not to a video`);
      }
    }
    return problems;
  },
});
