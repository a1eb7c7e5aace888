import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';
import { textLength } from '../kit/text-length.ts';

/** Lemmy's limit on a comment's text (open-and-community.md 7.7); a post's body takes 50,000. */
const commentLimit = 10_000;

/** Fields of POST /api/v3/post that SPS takes from the caller; the body is the post's text. */
export const lemmySettings = z.object({
  community_id: z.number(whenMissing('a Lemmy post needs a community_id (see the communities tools)')).int().positive()
    .describe('Id of the community on the connected instance (see the communities tools)'),
  name: z
    .string(whenMissing('a Lemmy post needs a name: its title'))
    .trim()
    .min(3)
    .max(200)
    .regex(/^[^\r\n]*$/, 'must be one line')
    .describe('Post title: 3 to 200 characters on one line'),
  url: z.url({ protocol: /^https?$/ }).max(2000).optional()
    .describe('Link the post points to; without it the first image becomes the post\'s URL, '
      + 'with it the link\'s thumbnail'),
  alt_text: z.string().max(1500).optional().describe('Alt text of the post\'s image'),
  nsfw: z.boolean().optional().describe('Mark the post as not safe for work'),
  language_id: z.number().int().nonnegative().optional().describe('Instance language id of the post'),
});

/** Facts: ../shared/platforms/open-and-community.md, section 7 (Lemmy). */
export const lemmy = definePlatform({
  identifier: 'lemmy',
  displayName: 'Lemmy',
  group: 'community',
  // A post's body may reach 50,000 characters; comments (the later parts) stop at 10,000 (checkPost).
  textLimit: 50000,
  textCounting: 'code-points',
  replies: 'comment',
  mediaRules: 'The first media of a post must be an image (it becomes the post\'s image); further images are '
    + 'embedded in the text and videos linked from it, where the instance\'s image server takes video.',
  rules:
    'Posts go to one community of the connected instance with a title; the text is the Markdown body, up to '
    + '50,000 characters. Later parts become comments on the post, each answering the one before, up to 10,000 '
    + 'characters. Instances set their own upload size and rate limits (by default 6 posts and 6 images per '
    + 'period), and some communities let only moderators post.',
  settings: lemmySettings,
  tools: [
    {
      methodName: 'searchCommunities',
      description: 'Finds communities known to the instance by name, most active first.',
      dataSchema: [{ key: 'q', type: 'string', description: 'Search text' }],
    },
    {
      methodName: 'listCommunities',
      description: 'Lists communities: the account\'s subscriptions, the instance\'s local ones, or all known.',
      dataSchema: [{ key: 'type', type: 'string', description: 'Subscribed, Local or All' }],
    },
    {
      methodName: 'resolveCommunity',
      description: 'Looks up a remote community by its address so the instance learns its id.',
      dataSchema: [{ key: 'name', type: 'string', description: 'Community address such as !name@host' }],
    },
  ],
  checkPost({ parts }) {
    const problems = parts.slice(1).flatMap((part, index) => {
      const length = textLength(part.text, 'code-points');
      if (length <= commentLimit) return [];
      const limit = String(commentLimit);
      return [`part ${String(index + 2)} has ${String(length)} characters; Lemmy comments take up to ${limit}`];
    });
    const first = parts[0]?.media[0];
    if (first === undefined || first.kind === 'image') return problems;
    const { images } = countMedia(parts, 0);
    const before = images > 0 ? ' before its images' : '';
    return [...problems, `part 1 starts with a video${before}; Lemmy needs the first media to be an image`];
  },
});
