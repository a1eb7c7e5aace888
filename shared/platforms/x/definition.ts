import { z } from 'zod';
import { mediaSizeProblems } from '../kit/media-size-limits.ts';
import { countMedia, definePlatform, type PostPartFacts } from '../kit/platform-definition.ts';

const postId = z.string().regex(/^\d{1,19}$/, 'must be a numeric post id');

/** Options of POST /2/tweets that apply to the first part; the adapter sends them under their API names. */
export const xSettings = z.object({
  reply_settings: z
    .enum(['following', 'mentionedUsers', 'subscribers', 'verified'])
    .optional()
    .describe('Who may reply; leave out to let everyone reply'),
  community_id: z.string().regex(/^\d{1,19}$/, 'must be a numeric community id').optional()
    .describe('Post into this X Community'),
  quote_tweet_id: postId.optional().describe('Id of the post to quote; cannot be combined with media or a poll'),
  poll: z
    .object({
      options: z.array(z.string().min(1).max(25)).min(2).max(4).describe('The 2 to 4 choices'),
      duration_minutes: z.number().int().min(5).max(10080)
        .describe('How long the poll stays open, 5 minutes to 7 days'),
    })
    .optional()
    .describe('A poll on the first part; cannot be combined with media or a quote'),
  made_with_ai: z.boolean().optional().describe('Label the post as made with AI'),
  paid_partnership: z.boolean().optional().describe('Label the post as a paid partnership'),
});

const megabytes = 1024 * 1024;

/**
 * What X takes per file (oauth-majors.md 1.3): images JPG, PNG, WebP up to 5 MB; an animated GIF
 * up to 15 MB; video MP4 or MOV (H.264 + AAC) up to 512 MB, the limit of X's media page that
 * every account has (longer and larger videos need the posting user's Premium).
 */
const acceptedTypes = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'video/mp4', 'video/quicktime']);
const sizeLimits = { image: 5 * megabytes, gif: 15 * megabytes, video: 512 * megabytes };

function typeProblems(label: string, part: PostPartFacts): string[] {
  return part.media.flatMap((item) => (acceptedTypes.has(item.mimeType)
    ? []
    : [`${label} has a file of type ${item.mimeType}; X takes JPG, PNG, WebP, GIF, MP4 and MOV`]));
}

/** Facts: ../shared/platforms/oauth-majors.md, section 1 (X). */
export const x = definePlatform({
  identifier: 'x',
  displayName: 'X',
  group: 'social',
  // Verified (Premium) accounts may post longer text; 280 is what every account can post.
  textLimit: 280,
  textCounting: 'x-weighted',
  replies: 'thread',
  mediaRules: 'Up to 4 images, or 1 GIF, or 1 video per part; media cannot be mixed with a poll or a quote. '
    + 'Images JPG, PNG, WebP up to 5 MB; GIF up to 15 MB; video MP4 or MOV up to 512 MB.',
  rules:
    'Each part is a post; parts after the first reply to the previous one, forming a thread. '
    + 'Text is counted as X weighs it: every URL counts 23 and most CJK characters and emoji count 2. '
    + 'Verified accounts may post longer text, but SPS checks the 280 that every account has. '
    + 'A poll or a quoted post goes on the first part and excludes media there. '
    + 'X refuses identical text posted twice.',
  settings: xSettings,
  tools: [],
  checkPost({ settings, parts }) {
    const problems = parts.flatMap((part, index) => {
      const { images, videos, total } = countMedia(parts, index);
      const label = `part ${index + 1}`;
      const types = typeProblems(label, part);
      if (types.length > 0) return types;
      if (videos > 1) return [`${label} has ${videos} videos; X takes 1 video per post`];
      if (videos === 1 && images > 0) {
        return [`${label} mixes images and a video; X takes either up to 4 images or 1 video`];
      }
      if (images > 4) return [`${label} has ${images} images; X takes at most 4 images or 1 video`];
      if (total > 1 && part.media.some((item) => item.mimeType === 'image/gif')) {
        return [`${label} has a GIF among other media; X takes a GIF on its own`];
      }
      return [];
    });
    const firstHasMedia = countMedia(parts).total > 0;
    if (settings.poll && firstHasMedia) problems.push('part 1 has media and a poll; X takes one or the other');
    const quotes = settings.quote_tweet_id !== undefined;
    if (quotes && firstHasMedia) problems.push('part 1 has media and a quoted post; X takes one or the other');
    if (settings.poll && quotes) problems.push('the post has a poll and a quoted post; X takes one or the other');
    return [...problems, ...mediaSizeProblems(parts, sizeLimits, 'X')];
  },
});
