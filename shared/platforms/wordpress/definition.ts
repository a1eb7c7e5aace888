import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { definePlatform } from '../kit/platform-definition.ts';

/** A term by its id, or by its name as the site shows it. */
const termRefs = z.array(z.union([z.number().int().positive(), z.string().trim().min(1).max(200)]));

/** Arguments of POST /wp/v2/{rest_base} that SPS passes through; the post text becomes `content`. */
export const wordpressSettings = z.object({
  title: z.string(whenMissing('a WordPress post needs a title')).trim().min(1, 'a WordPress post needs a title')
    .describe('Post title (required)'),
  post_type: z
    .string(whenMissing('a WordPress post needs a post_type, such as "posts" or "pages" (see the postTypes tool)'))
    .regex(/^[a-z0-9_-]+$/, 'must be a REST base such as "posts" or "pages"')
    .describe('REST base of the post type to create, such as posts or pages (see the postTypes tool)'),
  status: z
    .enum(['publish', 'draft', 'pending', 'private'])
    .optional()
    .describe('publish (the default), draft, pending review or private'),
  excerpt: z.string().optional().describe('Short summary of the post'),
  slug: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'use lowercase letters, digits and hyphens')
    .optional()
    .describe('URL slug; WordPress makes one from the title when absent'),
  categories: termRefs.optional().describe('Categories by id or name (see the categories tool); they must exist'),
  tags: termRefs.optional().describe('Tags by id or name (see the tags tool); a name the site lacks is created'),
  canonical_url: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Canonical link, written to the canonical field an SEO plugin exposes in the REST API (core has none)'),
  comment_status: z.enum(['open', 'closed']).optional().describe('Whether readers can comment'),
  format: z
    .enum(['standard', 'aside', 'chat', 'gallery', 'link', 'image', 'quote', 'status', 'video', 'audio'])
    .optional()
    .describe('Post format, when the theme supports formats'),
  sticky: z.boolean().optional().describe('Keep the post at the top of the blog (post type "posts" only)'),
  password: z.string().min(1).optional().describe('Password readers need to see the post'),
});

/** Facts: ../shared/platforms/design-blogging-business.md, section 6 (WordPress). */
export const wordpress = definePlatform({
  identifier: 'wordpress',
  displayName: 'WordPress',
  group: 'blogging',
  textLimit: 100000,
  textCounting: 'code-points',
  replies: 'none',
  mediaRules: 'Images and videos are uploaded to the site\'s media library, within the site\'s own upload size limit.',
  rules: 'Each post is one entry of the chosen post type on a self-hosted site; title and post_type are required. '
    + 'The text is Markdown or plain text and becomes HTML. The first image becomes the featured image; other media '
    + 'are uploaded to the media library and shown after the text. Categories and tags are given by id or name (a '
    + 'missing tag is created). The connected user\'s role must allow creating that post type. There are no '
    + 'threads, so send one part only.',
  settings: wordpressSettings,
  tools: [
    {
      methodName: 'postTypes',
      description: 'Lists the site\'s post types with their REST base, for post_type.',
      dataSchema: [],
    },
    { methodName: 'categories', description: 'Lists the site\'s categories with their ids.', dataSchema: [] },
    {
      methodName: 'tags',
      description: 'Lists the site\'s tags with their ids; with names, answers their ids and creates missing ones.',
      dataSchema: [{ key: 'names', type: 'string', description: 'Comma-separated tag names (optional)' }],
    },
    { methodName: 'statuses', description: 'Lists the post statuses the site offers.', dataSchema: [] },
  ],
  checkPost({ settings }) {
    if (settings.sticky === true && settings.post_type !== 'posts') {
      return [`sticky applies to WordPress posts only, not to post type "${settings.post_type}"`];
    }
    return [];
  },
});
