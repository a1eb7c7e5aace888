import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Fields of POST /v2/shots that SPS passes through; the post text becomes the shot's description. */
export const dribbbleSettings = z.object({
  title: z.string(whenMissing('a shot needs a title')).trim().min(1, 'a shot needs a title')
    .describe('Shot title (required)'),
  // Tags travel as one comma-separated field of the upload form, so a tag cannot hold a comma.
  tags: z.array(z.string().trim().min(1).regex(/^[^,]*$/, 'a tag cannot contain a comma')).max(12).optional()
    .describe('Tags of the shot, up to 12'),
  team_id: z.number().int().positive().optional().describe('Post on behalf of this team (ids from the teams tool)'),
  low_profile: z.boolean().optional().describe('Keep the shot out of the default profile stream'),
});

const acceptedSizes = ['400x300', '800x600'];

/** Shots take GIF, JPG and PNG (design-blogging-business.md 2.3); SPS also stores WebP, AVIF, BMP and TIFF. */
const acceptedTypes = ['image/gif', 'image/jpeg', 'image/png'];

/** Facts: ../shared/platforms/design-blogging-business.md, section 2 (Dribbble). */
export const dribbble = definePlatform({
  identifier: 'dribbble',
  displayName: 'Dribbble',
  group: 'design',
  textLimit: 40000,
  textCounting: 'code-points',
  replies: 'none',
  mediaRules: 'Exactly 1 image (GIF, JPG or PNG) of exactly 400x300 or 800x600 pixels; no video.',
  rules: 'Each post is one shot: a single image with a required title; the text is its description, which may use '
    + 'a few HTML tags (a, em, strong, code). The account must be allowed to upload shots, and Dribbble caps shots '
    + 'per day. There are no comments or threads, so send one part only.',
  settings: dribbbleSettings,
  tools: [
    {
      methodName: 'teams',
      description: 'Lists the teams the account belongs to, whose ids go in team_id.',
      dataSchema: [],
    },
  ],
  checkPost({ parts }) {
    const { videos, total } = countMedia(parts);
    if (videos > 0) return ['part 1 has a video; Dribbble takes exactly 1 image and no video'];
    if (total !== 1) return [`part 1 has ${total} images; Dribbble takes exactly 1`];
    const image = parts[0]?.media[0];
    if (image === undefined) return [];
    if (!acceptedTypes.includes(image.mimeType)) {
      return [`the image is ${image.mimeType}; Dribbble takes only GIF, JPG or PNG images`];
    }
    if (image.width === null || image.height === null) {
      return ['the image\'s size is unknown; Dribbble takes only 400x300 or 800x600 images'];
    }
    const size = `${image.width}x${image.height}`;
    if (!acceptedSizes.includes(size)) return [`the image is ${size}; Dribbble takes only 400x300 or 800x600`];
    return [];
  },
});
