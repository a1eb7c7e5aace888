import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Fields of the `article` object of POST /api/articles that SPS passes through. */
export const devtoSettings = z.object({
  title: z.string(whenMissing('a Dev.to article needs a title')).trim().min(1, 'a Dev.to article needs a title')
    .max(128).describe('Article title (required), up to 128 characters'),
  tags: z
    .array(z.string().regex(/^[a-zA-Z0-9]+$/, 'tags are letters and digits only'))
    .max(4, 'Dev.to takes up to 4 tags')
    .optional()
    .describe('Up to 4 tags, letters and digits only'),
  series: z.string().trim().min(1).optional().describe('Name of the series the article belongs to'),
  main_image: z.url({ protocol: /^https?$/ }).optional()
    .describe('Address of the cover image; the first attached image is the cover when absent'),
  canonical_url: z.url({ protocol: /^https?$/ }).optional().describe('Original address when the article was first published elsewhere; must be unique on the site'),
  description: z.string().trim().min(1).optional().describe('Short summary shown in feeds and previews'),
  published: z.boolean().optional().describe('false keeps the article as a draft on dev.to; published unless said'),
  organization_id: z.number().int().positive().optional().describe('Publish under this organization (the user must be a member; ids from the organizations tool)'),
});

/** Facts: ../shared/platforms/design-blogging-business.md, section 4 (Dev.to / Forem). */
export const devto = definePlatform({
  identifier: 'devto',
  displayName: 'Dev.to',
  group: 'blogging',
  textLimit: 100000,
  textCounting: 'code-points',
  replies: 'none',
  // The cover and the images in the text are addresses dev.to fetches.
  mediaByUrl: true,
  mediaRules: 'Images only, placed in the article by URL; no video upload.',
  rules: 'Each post is one Markdown article on dev.to (or another Forem site); a title is required and at most 4 tags are allowed. A canonical URL already used on the site is refused. Comments cannot be written through the API, so send one part only.',
  settings: devtoSettings,
  tools: [
    {
      methodName: 'tags',
      description: 'Lists the site\'s tags, most popular first.',
      dataSchema: [{ key: 'page', type: 'number', description: 'Page to read, from 1' }],
    },
    { methodName: 'organizations', description: 'Lists the organizations the user has published under, with their ids for organization_id.', dataSchema: [] },
  ],
  checkPost({ parts }) {
    const { videos } = countMedia(parts);
    if (videos > 0) return [`part 1 has ${videos} video(s); Dev.to articles take images only`];
    return [];
  },
});
