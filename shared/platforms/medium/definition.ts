import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

const licenses = [
  'all-rights-reserved', 'cc-40-by', 'cc-40-by-sa', 'cc-40-by-nd', 'cc-40-by-nc', 'cc-40-by-nc-nd', 'cc-40-by-nc-sa', 'cc-40-zero', 'public-domain',
] as const;

/** Fields of POST /v1/users/{id}/posts (or /v1/publications/{id}/posts) that SPS passes through. */
export const mediumSettings = z.object({
  // Medium drops a title over 100 characters and makes one up, so refuse it instead.
  title: z.string(whenMissing('a Medium story needs a title')).trim().min(1, 'a Medium story needs a title').max(100)
    .describe('Story title for listings and search, up to 100 characters; '
      + 'Medium does not show it in the story, so repeat it in the text'),
  tags: z.array(z.string().trim().min(1).max(25)).max(3).optional().describe('Up to 3 tags of at most 25 characters (Medium ignores the rest)'),
  canonicalUrl: z.url({ protocol: /^https?$/ }).optional().describe('Original address when the story was first published elsewhere'),
  publishStatus: z.enum(['public', 'draft', 'unlisted']).optional().describe('public (the default), draft or unlisted'),
  license: z.enum(licenses).optional().describe('Licence of the story; all-rights-reserved by default'),
  notifyFollowers: z.boolean().optional().describe('Tell the author\'s followers about the story'),
  publicationId: z.string().trim().min(1).optional().describe('Publish in this publication instead of the own profile (ids from the publications tool); writers can only submit drafts there'),
});

/** Facts: ../shared/platforms/design-blogging-business.md, section 3 (Medium). */
export const medium = definePlatform({
  identifier: 'medium',
  displayName: 'Medium',
  group: 'blogging',
  textLimit: 100000,
  textCounting: 'code-points',
  replies: 'none',
  // Medium fetches the images the story's text links.
  mediaByUrl: true,
  mediaRules: 'Images only (JPEG, PNG, GIF or TIFF), placed in the story by URL; no video.',
  rules: 'Each post is one story on the author\'s profile or in a publication; a title is required. Medium\'s API is no longer maintained: stories can be created but never edited or deleted through it, and publishing is capped at about 10 stories a day. There are no comments or threads, so send one part only.',
  settings: mediumSettings,
  tools: [
    { methodName: 'publications', description: 'Lists the publications the user can contribute to, whose ids go in publicationId.', dataSchema: [] },
    {
      methodName: 'contributors',
      description: 'Lists the editors and writers of one publication.',
      dataSchema: [{ key: 'publicationId', type: 'string', description: 'Id of the publication' }],
    },
  ],
  checkPost({ parts }) {
    const { videos } = countMedia(parts);
    if (videos > 0) return [`part 1 has ${videos} video(s); Medium stories take images only`];
    return [];
  },
});
