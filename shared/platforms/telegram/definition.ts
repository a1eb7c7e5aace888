import { z } from 'zod';
import { mediaSizeProblems } from '../kit/media-size-limits.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';
import { textLength } from '../kit/text-length.ts';

/** Bot API send options that SPS passes through; the chat comes from the channel. */
export const telegramSettings = z.object({
  disable_notification: z.boolean().optional().describe('Deliver the message silently'),
  protect_content: z.boolean().optional().describe('Stop the message from being forwarded or saved'),
  message_thread_id: z.number().int().positive().optional().describe('Forum topic to post in, for groups with topics'),
  disable_link_preview: z.boolean().optional()
    .describe('Do not show a preview of the first link (link_preview_options.is_disabled)'),
  has_spoiler: z.boolean().optional().describe('Cover the photos and videos with a spoiler animation; needs media'),
  show_caption_above_media: z.boolean().optional()
    .describe('Show the text above the media instead of below; needs media'),
});

const maxAlbum = 10;
const maxCaption = 1024;
/** SPS uploads each file in the request (multipart), where Telegram takes photos up to 10 MB, other files 50 MB. */
const sizeLimits = { image: 10 * 1024 * 1024, video: 50 * 1024 * 1024 };

/** Facts: ../shared/platforms/open-and-community.md, section 10 (Telegram). */
export const telegram = definePlatform({
  identifier: 'telegram',
  displayName: 'Telegram',
  group: 'community',
  textLimit: 4096,
  textCounting: 'code-points',
  replies: 'comment',
  // One SPS bot sends for every chat: about 30 messages a second overall (section 10.7).
  concurrentCalls: 7,
  mediaRules: 'Up to 10 photos and videos per message, sent as one album; photos up to 10 MB, videos up to 50 MB;'
    + ' with media the text is a caption of at most 1024 characters.',
  rules: 'The SPS bot posts in the connected channel or group, where it must be an administrator allowed to post.'
    + ' Text is up to 4096 characters, or 1024 as the caption of media, sent as plain text. Each later part replies'
    + ' to the part before it. About one message per second per chat.',
  settings: telegramSettings,
  tools: [
    {
      methodName: 'connectChat',
      description: 'Finds the chat where a connect code was sent to the bot, to learn its chat id.',
      dataSchema: [{ key: 'code', type: 'string', description: 'Code the user sent in the chat as /connect <code>' }],
    },
    {
      methodName: 'botRights',
      description: 'Checks that the bot is an administrator of the chat with the right to post.',
      dataSchema: [
        { key: 'chat', type: 'string', description: 'Chat id or @username; the connected chat if left out' },
      ],
    },
  ],
  checkPost({ settings, parts }) {
    const problems = parts.flatMap((part, index) => {
      const { total } = countMedia(parts, index);
      if (total > maxAlbum) {
        return [`part ${index + 1} has ${total} media; Telegram sends at most ${maxAlbum} in one album`];
      }
      const length = textLength(part.text, 'code-points');
      if (total > 0 && length > maxCaption) {
        return [`part ${index + 1} has media and ${length} characters; Telegram captions take at most ${maxCaption}`];
      }
      return [];
    });
    const anyMedia = parts.some((part) => part.media.length > 0);
    for (const key of ['has_spoiler', 'show_caption_above_media'] as const) {
      if (settings[key] === true && !anyMedia) {
        problems.push(`settings.${key} needs media; this Telegram post has none`);
      }
    }
    return problems.concat(mediaSizeProblems(parts, sizeLimits, 'Telegram'));
  },
});
