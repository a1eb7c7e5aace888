import { z } from 'zod';
import { mediaSizeProblems } from '../kit/media-size-limits.ts';
import { countMedia, definePlatform, type MediaFacts } from '../kit/platform-definition.ts';

/** Fields of POST /v5/pins that SPS passes through; the post text becomes the pin's description. */
export const pinterestSettings = z.object({
  board_id: z.string().regex(/^\d+$/, 'must be a numeric board id').optional()
    .describe('Board the pin is saved to (ids from the boards tool); the channel\'s own board when left out'),
  board_section_id: z.string().regex(/^\d+$/, 'must be a numeric section id').optional()
    .describe('Section of the board (ids from the boardSections tool)'),
  title: z.string().max(100).optional().describe('Pin title, up to 100 characters'),
  link: z.url({ protocol: /^https?$/ }).max(2048).optional().describe('Destination URL opened from the pin'),
  alt_text: z.string().max(500).optional().describe('Alternative text of the image, up to 500 characters'),
  dominant_color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as "#6E7874"').optional()
    .describe('Placeholder colour shown while the pin loads'),
  cover_image_url: z.url({ protocol: /^https?$/ }).optional()
    .describe('Cover image of a video pin; a video pin needs this or cover_image_key_frame_time'),
  // Pinterest's PinMediaSourceVideoID types the key frame as an integer of seconds, at least 0.
  cover_image_key_frame_time: z.number()
    .int('must be a whole number of seconds, such as 2 (Pinterest takes no fractions of a second)')
    .min(0, 'must be 0 seconds or more').optional()
    .describe('Whole second of the video used as its cover; a video pin needs this or cover_image_url'),
});

/** The image types pins take (help centre: PNG and JPEG; the API's base64 sources name only these two). */
const pinImageTypes = ['image/png', 'image/jpeg'];

/**
 * The help centre gives 20 to 32 MB for images depending on the page version: the lower bound
 * holds everywhere. Videos go up to 2 GB.
 */
const pinSizeLimits = { image: 20 * 1024 * 1024, video: 2 * 1024 * 1024 * 1024 };

/** Images of a carousel must share one size (Pinterest refuses mixed sizes); unknown sizes are left to it. */
function carouselSizeProblem(images: MediaFacts[]): string[] {
  const sizes = new Set(images.flatMap((image) => (
    image.width === null || image.height === null ? [] : [`${String(image.width)}x${String(image.height)}`]
  )));
  if (sizes.size <= 1) return [];
  return [`the carousel's images have different sizes (${[...sizes].join(', ')}); Pinterest takes images of one size`];
}

/** Facts: ../shared/platforms/design-blogging-business.md, section 1 (Pinterest). */
export const pinterest = definePlatform({
  identifier: 'pinterest',
  displayName: 'Pinterest',
  group: 'design',
  // The help centre's displayed description length; the API schema itself accepts 800.
  textLimit: 500,
  textCounting: 'code-points',
  replies: 'none',
  mediaRules: '1 to 5 PNG or JPEG images (2 or more make a carousel, all of one size), '
    + 'or 1 video of 4 seconds to 15 minutes with a cover.',
  rules: 'Each post is one pin saved to a board: the channel\'s board, or the one board_id names. The text is '
    + 'the pin description; title, link and alt text are optional settings. Pinterest has no comments or threads '
    + 'through its API, so send one part only.',
  settings: pinterestSettings,
  tools: [
    {
      methodName: 'boards',
      description: 'Lists the boards the account can pin to (own and group boards).',
      dataSchema: [],
    },
    {
      methodName: 'boardSections',
      description: 'Lists the sections of one board.',
      dataSchema: [{ key: 'board_id', type: 'string', description: 'Id of the board' }],
    },
    {
      methodName: 'createBoard',
      description: 'Creates a board and returns it.',
      dataSchema: [
        { key: 'name', type: 'string', description: 'Name of the new board' },
        { key: 'description', type: 'string', description: 'Optional description of the board' },
        { key: 'privacy', type: 'string', description: 'PUBLIC, PROTECTED or SECRET' },
      ],
    },
  ],
  checkPost({ settings, parts }) {
    const { videos, total } = countMedia(parts);
    if (total === 0) return ['part 1 has no media; Pinterest takes 1 to 5'];
    if (total > 5) return [`part 1 has ${total} media; Pinterest takes 1 to 5`];
    if (videos > 0 && total > 1) {
      return ['part 1 mixes a video with other media; a Pinterest video pin takes that video only'];
    }
    const problems = mediaSizeProblems(parts, pinSizeLimits, 'Pinterest');
    if (videos === 0) {
      const images = parts[0]?.media ?? [];
      const refused = new Set(images.map((image) => image.mimeType).filter((type) => !pinImageTypes.includes(type)));
      if (refused.size > 0) problems.push(`Pinterest takes PNG or JPEG images only, not ${[...refused].join(', ')}`);
      return [...problems, ...carouselSizeProblem(images)];
    }
    const duration = parts[0]?.media[0]?.durationSeconds ?? null;
    if (duration !== null && (duration < 4 || duration > 900)) {
      problems.push(`the video lasts ${duration} seconds; Pinterest takes 4 seconds to 15 minutes`);
    }
    if (settings.cover_image_url === undefined && settings.cover_image_key_frame_time === undefined) {
      problems.push('a Pinterest video pin needs a cover: set cover_image_url or cover_image_key_frame_time');
    }
    return problems;
  },
});
