import { z } from 'zod';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Fields of POST /api/submit (and the gallery variant) that SPS takes from the caller. */
export const redditSettings = z.object({
  subreddit: z
    .string()
    .regex(/^[A-Za-z0-9_]{2,21}$/, 'must be a subreddit name without "r/", such as "typescript"')
    .describe('Subreddit to submit to, without "r/"'),
  title: z.string().trim().min(1).max(300).describe('Post title (1 to 300 characters)'),
  type: z
    .enum(['self', 'link', 'image', 'video', 'videogif', 'gallery'])
    .describe('Reddit post kind: self (text), link, image, video, videogif (silent video) or gallery (several images)'),
  url: z.url({ protocol: /^https?$/ }).max(2000).optional().describe('Address a link post points to; required for type link, refused otherwise'),
  flair_id: z.string().min(1).max(64).optional().describe('Id of one of the subreddit\'s link flairs (see the flairs tool)'),
  flair_text: z.string().min(1).max(64).optional().describe('Flair text, for flairs whose text is editable'),
  nsfw: z.boolean().optional().describe('Mark the post as not safe for work'),
  spoiler: z.boolean().optional().describe('Mark the post as a spoiler'),
  send_replies: z.boolean().optional().describe('Send replies to the post to the account\'s inbox'),
});

const maxGallery = 20;

/** Facts: ../shared/platforms/open-and-community.md, section 6 (Reddit). */
export const reddit = definePlatform({
  identifier: 'reddit',
  displayName: 'Reddit',
  group: 'community',
  // Self text may reach 40,000 characters, but comments (the later parts) stop at 10,000.
  textLimit: 10000,
  textCounting: 'code-points',
  replies: 'thread',
  mediaRules: 'Self and link posts take no media, image posts 1 image, video and videogif posts 1 video, gallery posts 1 to 20 images; comments take none.',
  rules:
    'Each post goes to one subreddit with a title and a post type. Link posts need a url; the text of the first part is the self text (or the body of a link or media post). Later parts are chained comments. Subreddits add their own rules (allowed post types, required flair, title patterns, karma) that Reddit checks on submit; the tools read them.',
  settings: redditSettings,
  tools: [
    { methodName: 'searchSubreddits', description: 'Finds public subreddits by name or topic.', dataSchema: [{ key: 'q', type: 'string', description: 'Search text' }] },
    { methodName: 'mySubreddits', description: 'Lists the subreddits the account subscribes to.', dataSchema: [] },
    {
      methodName: 'subredditSettings',
      description: 'Reads which post types a subreddit allows (text, links, images, videos, galleries) and whether it is NSFW.',
      dataSchema: [{ key: 'subreddit', type: 'string', description: 'Subreddit name without "r/"' }],
    },
    {
      methodName: 'postRequirements',
      description: 'Reads a subreddit\'s submission requirements: required flair, title length and patterns, body policy, allowed domains.',
      dataSchema: [{ key: 'subreddit', type: 'string', description: 'Subreddit name without "r/"' }],
    },
    {
      methodName: 'flairs',
      description: 'Lists a subreddit\'s link flairs (id, text, whether the text is editable).',
      dataSchema: [{ key: 'subreddit', type: 'string', description: 'Subreddit name without "r/"' }],
    },
    { methodName: 'rules', description: 'Lists a subreddit\'s posting rules.', dataSchema: [{ key: 'subreddit', type: 'string', description: 'Subreddit name without "r/"' }] },
  ],
  checkPost({ settings, parts }) {
    const problems: string[] = [];
    const { type, url } = settings;
    const { images, videos, total } = countMedia(parts, 0);
    if (type === 'link' && url === undefined) problems.push('a Reddit link post needs settings.url');
    if (type !== 'link' && url !== undefined) problems.push(`settings.url is only for Reddit link posts, not ${type} posts`);
    if ((type === 'self' || type === 'link') && total > 0) {
      problems.push(`part 1 has ${total} media; a Reddit ${type} post takes none (use type image, video or gallery)`);
    }
    if (type === 'image' && (images !== 1 || videos > 0)) problems.push('a Reddit image post takes exactly 1 image and no video');
    if ((type === 'video' || type === 'videogif') && (videos !== 1 || images > 0)) {
      problems.push(`a Reddit ${type} post takes exactly 1 video and no image`);
    }
    if (type === 'gallery') {
      if (videos > 0) problems.push('a Reddit gallery post takes images only');
      if (images === 0 || images > maxGallery) problems.push(`part 1 has ${images} images; a Reddit gallery takes 1 to ${maxGallery}`);
    }
    parts.forEach((_, index) => {
      const later = countMedia(parts, index).total;
      if (index > 0 && later > 0) problems.push(`part ${index + 1} has ${later} media; Reddit comments take none`);
    });
    return problems;
  },
});
