import { z } from 'zod';
import { mediaSizeProblems } from '../kit/media-size-limits.ts';
import { countMedia, definePlatform, type MediaFacts } from '../kit/platform-definition.ts';

/** Options of the Threads container (POST /{threads-user-id}/threads) for the first part. */
export const threadsSettings = z.object({
  reply_control: z
    .enum(['everyone', 'accounts_you_follow', 'mentioned_only'])
    .optional()
    .describe('Who may reply to the post; everyone when left out'),
  topic_tag: z
    .string()
    .min(1)
    .max(50)
    .regex(/^[^.&]+$/, 'must not contain a period or an ampersand')
    .optional()
    .describe('Topic shown with the post, without #'),
  link_attachment: z.url({ protocol: /^https?$/ }).optional()
    .describe('Link previewed under a text-only first part'),
  quote_post_id: z.string().regex(/^\d+$/, 'must be a numeric Threads post id').optional()
    .describe('Id of the Threads post to quote'),
});

/** What Threads takes (section 6.3): JPEG and PNG images, MP4 and MOV videos. */
const acceptedMimeTypes = new Set(['image/jpeg', 'image/png', 'video/mp4', 'video/quicktime']);
const maxImageBytes = 8 * 1024 * 1024;
const maxVideoBytes = 1024 * 1024 * 1024;
/** Threads scales an image's width into 320-1440 itself, but refuses one longer than 10 times its width or height. */
const maxImageAspect = 10;
const maxVideoWidth = 1920;
const maxCarouselItems = 20;

/** One sentence per file of the part Threads would refuse: its type or shape (sizes: mediaSizeProblems). */
function mediaProblems(media: MediaFacts[], name: string): string[] {
  return media.flatMap((item, index) => {
    const which = `${name}, media ${String(index + 1)}`;
    if (!acceptedMimeTypes.has(item.mimeType)) {
      return [`${which} is ${item.mimeType}; Threads takes JPEG and PNG images, MP4 and MOV videos`];
    }
    const problems: string[] = [];
    const { width, height } = item;
    if (item.kind === 'image' && width !== null && height !== null && width > 0 && height > 0) {
      if (Math.max(width / height, height / width) > maxImageAspect) {
        problems.push(`${which}: the image is ${String(width)}x${String(height)}; Threads takes at most 10:1`);
      }
    }
    if (item.kind === 'video' && width !== null && width > maxVideoWidth) {
      const most = String(maxVideoWidth);
      problems.push(`${which}: the video is ${String(width)} pixels wide; Threads takes at most ${most}`);
    }
    return problems;
  });
}

/** Facts: ../shared/platforms/oauth-majors.md, section 6 (Threads). */
export const threads = definePlatform({
  identifier: 'threads',
  displayName: 'Threads',
  group: 'social',
  // The docs count emoji by their UTF-8 bytes; SPS counts characters and leaves that edge to Threads.
  textLimit: 500,
  textCounting: 'code-points',
  replies: 'thread',
  mediaByUrl: true,
  mediaRules: 'Each part takes one image or video, or a carousel of 2 to 20: JPEG or PNG images up to 8 MB, '
    + 'MP4 or MOV videos up to 5 minutes and 1 GB. Threads fetches them from their public URLs.',
  rules:
    'Each part is a post; parts after the first reply to the previous one, forming a thread. Text holds at most '
    + '500 characters, and the first URL in it becomes the link preview. The settings apply to the first part; a '
    + 'link attachment only goes with a first part that has no media. A profile may publish 250 posts and 1,000 '
    + 'replies a day through the API (see the publishingLimit tool).',
  settings: threadsSettings,
  tools: [
    {
      methodName: 'publishingLimit',
      description: 'Reads how many posts and replies the profile has published through the API in the last 24 '
        + 'hours and its quotas.',
      dataSchema: [],
    },
  ],
  checkPost({ settings, parts }) {
    const problems = parts.flatMap((part, index) => {
      const name = `part ${String(index + 1)}`;
      const { total } = countMedia(parts, index);
      const count = total > maxCarouselItems
        ? [`${name} has ${String(total)} media; Threads takes at most ${String(maxCarouselItems)} per post`]
        : [];
      return [...count, ...mediaProblems(part.media, name)];
    });
    if (settings.link_attachment !== undefined && countMedia(parts).total > 0) {
      problems.push('part 1 has media and a link attachment; Threads previews a link only on a text-only post');
    }
    return [...problems, ...mediaSizeProblems(parts, { image: maxImageBytes, video: maxVideoBytes }, 'Threads')];
  },
});
