import { z } from 'zod';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Fields of POST /api/v3/post that SPS takes from the caller; the body is the post's text. */
export const lemmySettings = z.object({
  community_id: z.number().int().positive().describe('Id of the community on the connected instance (see the communities tools)'),
  name: z
    .string()
    .trim()
    .min(3)
    .max(200)
    .regex(/^[^\r\n]*$/, 'must be one line')
    .describe('Post title: 3 to 200 characters on one line'),
  url: z.url({ protocol: /^https?$/ }).max(2000).optional().describe('Link the post points to; without it, the first image becomes the post\'s URL'),
  alt_text: z.string().max(1500).optional().describe('Alt text of the post\'s image'),
  nsfw: z.boolean().optional().describe('Mark the post as not safe for work'),
  language_id: z.number().int().nonnegative().optional().describe('Instance language id of the post'),
});

/** Facts: ../shared/platforms/open-and-community.md, section 7 (Lemmy). */
export const lemmy = definePlatform({
  identifier: 'lemmy',
  displayName: 'Lemmy',
  group: 'community',
  // Post bodies may reach 50,000 characters; comments (the later parts) stop at 10,000.
  textLimit: 10000,
  textCounting: 'code-points',
  replies: 'comment',
  mediaRules: 'The first media of a post must be an image (it becomes the post\'s image); further media are embedded in the body.',
  rules:
    'Posts go to one community of the connected instance with a title; the text is the Markdown body. Later parts become comments on the post. Instances set their own upload size and rate limits (by default 6 posts and 6 images per period), and some communities let only moderators post.',
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
    const first = parts[0]?.media[0];
    if (first === undefined || first.kind === 'image') return [];
    const { images } = countMedia(parts, 0);
    return [`part 1 starts with a video${images > 0 ? ' before its images' : ''}; Lemmy needs the first media to be an image`];
  },
});
