import { z } from 'zod';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

const imageTypes = ['image/jpeg', 'image/png', 'image/gif'];

/** Options of POST /rest/posts for a member's post, plus how SPS should send several images. */
export const linkedinSettings = z.object({
  visibility: z.enum(['PUBLIC', 'CONNECTIONS', 'LOGGED_IN']).optional().describe('Who can see the post; PUBLIC when left out'),
  isReshareDisabledByAuthor: z.boolean().optional().describe('Stop other members from resharing the post'),
  carousel: z
    .boolean()
    .optional()
    .describe('Send the images as one swipeable document (a carousel) instead of an image grid; needs 2 or more images'),
});

/** Facts: ../shared/platforms/oauth-majors.md, section 2 (LinkedIn). Shared with linkedin-page. */
export const linkedin = definePlatform({
  identifier: 'linkedin',
  displayName: 'LinkedIn',
  group: 'social',
  textLimit: 3000,
  textCounting: 'code-points',
  replies: 'comment',
  mediaRules: 'Either 1 to 20 images (JPEG, PNG or GIF) or a single MP4 video as the only media; a carousel needs 2 or more images; comments are text only.',
  rules:
    'The first part is the post; later parts are published as comments on it, as text only. LinkedIn reserves characters such as | { } @ [ ] ( ) < > # * _ ~ for its own markup; SPS escapes them, so write plain text. LinkedIn refuses a post whose text repeats an earlier one.',
  settings: linkedinSettings,
  tools: [],
  checkPost({ settings, parts }) {
    const problems: string[] = [];
    const { images, videos, total } = countMedia(parts);
    if (videos > 0 && total > 1) problems.push(`part 1 has ${total} media with a video; on LinkedIn a video must be the only media`);
    if (images > 20) problems.push(`part 1 has ${images} images; LinkedIn takes at most 20`);
    for (const item of parts[0]?.media ?? []) {
      if (item.kind === 'image' && !imageTypes.includes(item.mimeType)) {
        problems.push(`part 1 has a ${item.mimeType} image; LinkedIn takes JPEG, PNG or GIF images`);
      }
      if (item.kind === 'video' && item.mimeType !== 'video/mp4') problems.push(`part 1 has a ${item.mimeType} video; LinkedIn takes MP4 videos`);
    }
    if (settings.carousel === true && (images < 2 || videos > 0)) {
      problems.push(`part 1 has ${images} images; a LinkedIn carousel needs 2 or more images and no video`);
    }
    parts.forEach((part, index) => {
      if (index > 0 && part.media.length > 0) problems.push(`part ${index + 1} has media; LinkedIn comments are text only`);
    });
    return problems;
  },
});
