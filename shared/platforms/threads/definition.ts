import { z } from 'zod';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Options of the Threads container (POST /{threads-user-id}/threads) for the first part. */
export const threadsSettings = z.object({
  reply_control: z
    .enum(['everyone', 'accounts_you_follow', 'mentioned_only'])
    .optional()
    .describe('Who may reply to the post; everyone when left out'),
  topic_tag: z
    .string()
    .min(1)
    .max(50)
    .regex(/^[^.&]+$/, 'must not contain a period or an ampersand')
    .optional()
    .describe('Topic shown with the post, without #'),
  link_attachment: z.url({ protocol: /^https?$/ }).optional().describe('Link previewed under a text-only first part'),
  quote_post_id: z.string().regex(/^\d+$/, 'must be a numeric Threads post id').optional().describe('Id of the Threads post to quote'),
});

/** Facts: ../shared/platforms/oauth-majors.md, section 6 (Threads). */
export const threads = definePlatform({
  identifier: 'threads',
  displayName: 'Threads',
  group: 'social',
  // The docs count emoji by their UTF-8 bytes; SPS counts characters and leaves that edge to Threads.
  textLimit: 500,
  textCounting: 'code-points',
  replies: 'thread',
  mediaByUrl: true,
  mediaRules: 'Each part takes up to 20 images or videos (two or more make a carousel); Threads fetches them from their public URLs.',
  rules:
    'Each part is a post; parts after the first reply to the previous one, forming a thread. Text holds at most 500 characters, and the first URL in it becomes the link preview. A link attachment only goes with a first part that has no media. A profile may publish 250 posts and 1,000 replies a day through the API (see the publishingLimit tool).',
  settings: threadsSettings,
  tools: [
    {
      methodName: 'publishingLimit',
      description: 'Reads how many posts and replies the profile has published through the API in the last 24 hours and its quotas.',
      dataSchema: [],
    },
  ],
  checkPost({ settings, parts }) {
    const problems = parts.flatMap((_, index) => {
      const { total } = countMedia(parts, index);
      return total > 20 ? [`part ${index + 1} has ${total} media; Threads takes at most 20 per post`] : [];
    });
    if (settings.link_attachment !== undefined && countMedia(parts).total > 0) {
      problems.push('part 1 has media and a link attachment; Threads previews a link only on a text-only post');
    }
    return problems;
  },
});
