import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** `required`: what a post left without it needs (see kit/missing-setting.ts). */
const objectId = (required?: string) =>
  z.string(required === undefined ? undefined : whenMissing(required))
    .regex(/^[0-9a-fA-F]{24}$/, 'must be a 24-character hex id');

/** Fields of the PublishPostInput of the publishPost mutation that SPS passes through. */
export const hashnodeSettings = z.object({
  title: z.string(whenMissing('a Hashnode post needs a title')).trim().min(1, 'a Hashnode post needs a title')
    .describe('Post title (required)'),
  publicationId: objectId('a Hashnode post needs a publicationId (see the publications tool)')
    .describe('Publication the post goes to (required; ids from the publications tool)'),
  tags: z
    .array(z.object({
      slug: z.string().trim().min(1).describe('Tag slug; an unknown slug creates the tag'),
      name: z.string().trim().min(1).optional().describe('Display name for a new tag'),
    }), whenMissing('Hashnode needs at least 1 tag'))
    .min(1, 'Hashnode needs at least 1 tag')
    .max(15, 'Hashnode takes up to 15 tags')
    .describe('1 to 15 tags'),
  subtitle: z.string().trim().min(1).optional().describe('Subtitle shown under the title'),
  slug: z.string().regex(/^[a-z0-9-]+$/, 'use lowercase letters, digits and hyphens').optional().describe('URL slug; derived from the title when absent'),
  coverImage: z.url({ protocol: /^https?$/ }).optional()
    .describe('Address of the cover image; the first attached image is the cover when absent'),
  originalArticleURL: z.url({ protocol: /^https?$/ }).optional().describe('Canonical address when the post was first published elsewhere'),
  metaTitle: z.string().trim().min(1).optional().describe('Title for search engines'),
  metaDescription: z.string().trim().min(1).optional().describe('Description for search engines'),
  seriesId: objectId().optional().describe('Series of the publication the post joins (ids from the series tool)'),
  disableComments: z.boolean().optional().describe('Turn comments off'),
  isDelisted: z.boolean().optional().describe('Keep the post out of Hashnode feeds'),
  enableToc: z.boolean().optional().describe('Show a table of contents'),
});

/** Facts: ../shared/platforms/design-blogging-business.md, section 5 (Hashnode). */
export const hashnode = definePlatform({
  identifier: 'hashnode',
  displayName: 'Hashnode',
  group: 'blogging',
  textLimit: 10000,
  textCounting: 'code-points',
  replies: 'none',
  // The cover and the images in the text are addresses Hashnode fetches.
  mediaByUrl: true,
  mediaRules: 'Images only (no SVG, up to 8 MB each); no video.',
  rules: 'Each post is one Markdown article in a publication: title, publicationId and at least 1 tag are required. Publishing through the API needs the publication to be on a Pro plan, and contributors cannot publish directly. There are no comments or threads, so send one part only.',
  settings: hashnodeSettings,
  tools: [
    { methodName: 'publications', description: 'Lists the user\'s publications, whose ids go in publicationId.', dataSchema: [] },
    {
      methodName: 'tags',
      description: 'Looks up a tag by its slug.',
      dataSchema: [{ key: 'slug', type: 'string', description: 'Slug of the tag' }],
    },
    {
      methodName: 'series',
      description: 'Lists the series of one publication, whose ids go in seriesId.',
      dataSchema: [{ key: 'publicationId', type: 'string', description: 'Id of the publication' }],
    },
  ],
  checkPost({ parts }) {
    const { videos } = countMedia(parts);
    if (videos > 0) return [`part 1 has ${videos} video(s); Hashnode takes images only`];
    return [];
  },
});
