import { z } from 'zod';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Fields of POST /v5/pins that SPS passes through; the post text becomes the pin's description. */
export const pinterestSettings = z.object({
  board_id: z.string().regex(/^\d+$/, 'must be a numeric board id').describe('Board the pin is saved to (ids from the boards tool)'),
  board_section_id: z.string().regex(/^\d+$/, 'must be a numeric section id').optional().describe('Section of the board (ids from the boardSections tool)'),
  title: z.string().max(100).optional().describe('Pin title, up to 100 characters'),
  link: z.url({ protocol: /^https?$/ }).max(2048).optional().describe('Destination URL opened from the pin'),
  alt_text: z.string().max(500).optional().describe('Alternative text of the image, up to 500 characters'),
  dominant_color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as "#6E7874"').optional().describe('Placeholder colour shown while the pin loads'),
  cover_image_url: z.url({ protocol: /^https?$/ }).optional().describe('Cover image of a video pin; a video pin needs this or cover_image_key_frame_time'),
  cover_image_key_frame_time: z.number().min(0).optional().describe('Second of the video used as its cover; a video pin needs this or cover_image_url'),
});

/** Facts: ../shared/platforms/design-blogging-business.md, section 1 (Pinterest). */
export const pinterest = definePlatform({
  identifier: 'pinterest',
  displayName: 'Pinterest',
  group: 'design',
  // The help centre's displayed description length; the API schema itself accepts 800.
  textLimit: 500,
  textCounting: 'code-points',
  replies: 'none',
  mediaRules: '1 to 5 images (2 or more make a carousel), or 1 video of 4 seconds to 15 minutes with a cover.',
  rules: 'Each post is one pin saved to a board, so board_id is required. The text is the pin description; title, link and alt text are optional settings. Pinterest has no comments or threads through its API, so send one part only.',
  settings: pinterestSettings,
  tools: [
    { methodName: 'boards', description: 'Lists the boards the account can pin to (own and group boards).', dataSchema: [] },
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
    if (videos > 0 && total > 1) return ['part 1 mixes a video with other media; a Pinterest video pin takes that video only'];
    if (videos === 0) return [];
    const problems: string[] = [];
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
