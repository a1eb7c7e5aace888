import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { mediaSizeProblems } from '../kit/media-size-limits.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';
import { textLength } from '../kit/text-length.ts';

/** A subreddit as Reddit names it in URLs (`/r/<name>`), without the `r/`. */
export const subredditName = z
  .string(whenMissing('name the subreddit, without "r/"'))
  .regex(/^[A-Za-z0-9_]{2,21}$/, 'must be a subreddit name without "r/", such as "typescript"');

/** Fields of POST /api/submit (and the gallery variant) that SPS takes from the caller. */
export const redditSettings = z.object({
  subreddit: subredditName.describe('Subreddit to submit to, without "r/"'),
  title: z.string(whenMissing('a Reddit post needs a title')).trim().min(1).max(300)
    .describe('Post title (1 to 300 characters)'),
  type: z
    .enum(
      ['self', 'link', 'image', 'video', 'videogif', 'gallery'],
      whenMissing('a Reddit post needs a type: self, link, image, video, videogif or gallery'),
    )
    .describe(
      'Reddit post kind: self (text), link, image, video, videogif (silent video) or gallery (several images)',
    ),
  url: z.url({ protocol: /^https?$/ }).max(2000).optional()
    .describe('Address a link post points to; required for type link, refused otherwise'),
  // reddit.com/dev/api, POST /api/submit: flair_id is "a string no longer than 36 characters", a template's
  // UUID (@devvit/protos SubmitRequest.flairId's example); a longer one can name no flair.
  flair_id: z.string().min(1).max(36).optional()
    .describe('Id of one of the subreddit\'s link flairs (see the flairs tool)'),
  flair_text: z.string().min(1).max(64).optional().describe('Flair text, for flairs whose text is editable'),
  nsfw: z.boolean().optional().describe('Mark the post as not safe for work'),
  spoiler: z.boolean().optional().describe('Mark the post as a spoiler'),
  send_replies: z.boolean().optional().describe('Send replies to the post to the account\'s inbox'),
});

const maxGallery = 20;
/** Self text (the first part) may be 40,000 characters; a comment (every later part) 10,000. */
const selfTextLimit = 40_000;
const commentLimit = 10_000;
/** What the upload lease takes: JPEG, PNG and GIF (and WebP, which the site accepts), MP4 and MOV. */
const imageTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const videoTypes = ['video/mp4', 'video/quicktime'];
const maxImageBytes = 20 * 1024 * 1024;

/** Facts: ../shared/platforms/open-and-community.md, section 6 (Reddit). */
export const reddit = definePlatform({
  identifier: 'reddit',
  displayName: 'Reddit',
  group: 'community',
  // The first part's self text; checkPost holds the later parts, comments, to 10,000.
  textLimit: selfTextLimit,
  textCounting: 'code-points',
  replies: 'thread',
  // 100 queries a minute per OAuth client id, the operator's one app, uploads included (section 6.7).
  concurrentCalls: 1,
  concurrentUploads: 1,
  mediaRules: 'Self and link posts take no media, image posts 1 image, video and videogif posts 1 video (MP4 or MOV), '
    + 'gallery posts 1 to 20 images (JPEG, PNG, GIF or WebP, up to 20 MB each); comments take none.',
  rules:
    'Each post goes to one subreddit with a title and a post type. Link posts need a url; the text of the first part '
    + 'is the self text (or the body of a link or media post), up to 40,000 characters. Later parts are chained '
    + 'comments of up to 10,000 characters each, every one answering the part before it. Subreddits add their own '
    + 'rules (allowed post types, required flair, title patterns, karma) that Reddit checks on submit; the tools '
    + 'read them. A video post shows the poster chosen for the video (image[].thumbnail), else the frame SPS '
    + 'took from it.',
  settings: redditSettings,
  tools: [
    {
      methodName: 'searchSubreddits',
      description: 'Finds public subreddits by name or topic.',
      dataSchema: [{ key: 'q', type: 'string', description: 'Search text' }],
    },
    { methodName: 'mySubreddits', description: 'Lists the subreddits the account subscribes to.', dataSchema: [] },
    {
      methodName: 'subredditSettings',
      description:
        'Reads which post types a subreddit allows (text, links, images, videos, galleries) and whether it is NSFW.',
      dataSchema: [{ key: 'subreddit', type: 'string', description: 'Subreddit name without "r/"' }],
    },
    {
      methodName: 'postRequirements',
      description: 'Reads a subreddit\'s submission requirements: required flair, title length and patterns, '
        + 'body policy, allowed domains.',
      dataSchema: [{ key: 'subreddit', type: 'string', description: 'Subreddit name without "r/"' }],
    },
    {
      methodName: 'flairs',
      description: 'Lists a subreddit\'s link flairs (id, text, whether the text is editable).',
      dataSchema: [{ key: 'subreddit', type: 'string', description: 'Subreddit name without "r/"' }],
    },
    {
      methodName: 'rules',
      description: 'Lists a subreddit\'s posting rules.',
      dataSchema: [{ key: 'subreddit', type: 'string', description: 'Subreddit name without "r/"' }],
    },
  ],
  checkPost({ settings, parts }) {
    const problems: string[] = [];
    const { type, url } = settings;
    const { images, videos, total } = countMedia(parts, 0);
    if (type === 'link' && url === undefined) problems.push('a Reddit link post needs settings.url');
    if (type !== 'link' && url !== undefined) {
      problems.push(`settings.url is only for Reddit link posts, not ${type} posts`);
    }
    if ((type === 'self' || type === 'link') && total > 0) {
      problems.push(`part 1 has ${total} media; a Reddit ${type} post takes none (use type image, video or gallery)`);
    }
    if (type === 'image' && (images !== 1 || videos > 0)) {
      problems.push('a Reddit image post takes exactly 1 image and no video');
    }
    if ((type === 'video' || type === 'videogif') && (videos !== 1 || images > 0)) {
      problems.push(`a Reddit ${type} post takes exactly 1 video and no image`);
    }
    if (type === 'gallery') {
      if (videos > 0) problems.push('a Reddit gallery post takes images only');
      if (images === 0 || images > maxGallery) {
        problems.push(`part 1 has ${images} images; a Reddit gallery takes 1 to ${maxGallery}`);
      }
    }
    for (const item of parts[0]?.media ?? []) {
      const types = item.kind === 'image' ? imageTypes : videoTypes;
      if (!types.includes(item.mimeType)) {
        const takes = item.kind === 'image' ? 'JPEG, PNG, GIF or WebP images' : 'MP4 or MOV videos';
        problems.push(`part 1 has a ${item.mimeType} ${item.kind}; Reddit takes ${takes}`);
      }
    }
    problems.push(...mediaSizeProblems(parts, { image: maxImageBytes }, 'Reddit'));
    parts.forEach((part, index) => {
      if (index === 0) return;
      const later = countMedia(parts, index).total;
      if (later > 0) problems.push(`part ${index + 1} has ${later} media; Reddit comments take none`);
      const length = textLength(part.text, 'code-points');
      if (length > commentLimit) {
        problems.push(`part ${index + 1} has ${length} characters; a Reddit comment takes up to ${commentLimit}`);
      }
      if (part.text.trim() === '') problems.push(`part ${index + 1} is empty; a Reddit comment needs text`);
    });
    return problems;
  },
});
