import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { definePlatform } from '../kit/platform-definition.ts';

/** A public (`C…`) or private (`G…`) channel's id, as conversations.list names it. */
export const slackChannelId = z.string(whenMissing('name the Slack channel by its id (see the channels tool)'))
  .regex(/^[CG][A-Z0-9]{6,}$/, 'must be a Slack channel id such as "C0123456789"');

/** Fields of chat.postMessage that SPS takes from the caller. */
export const slackSettings = z
  .object({
    channel: slackChannelId.describe('Id of the public or private channel to post in (see the channels tool)'),
    username: z.string().trim().min(1).max(80).optional()
      .describe('Name shown instead of the app\'s (needs the chat:write.customize scope)'),
    icon_url: z.url({ protocol: /^https?$/ }).optional()
      .describe('Image shown as the sender\'s icon (needs chat:write.customize)'),
    icon_emoji: z.string().regex(/^:[a-z0-9_+'-]+:$/, 'must be an emoji code such as ":rocket:"').optional()
      .describe('Emoji shown as the sender\'s icon (needs chat:write.customize)'),
    unfurl_links: z.boolean().optional().describe('Show previews of links in the text'),
    unfurl_media: z.boolean().optional().describe('Show previews of media links in the text'),
    reply_broadcast: z.boolean().optional().describe('Also show the later parts (thread replies) in the channel'),
  })
  .refine((settings) => settings.icon_url === undefined || settings.icon_emoji === undefined, {
    message: 'give icon_url or icon_emoji, not both',
    path: ['icon_emoji'],
  });

/** Facts: ../shared/platforms/open-and-community.md, section 9 (Slack). */
export const slack = definePlatform({
  identifier: 'slack',
  displayName: 'Slack',
  group: 'community',
  // chat.postMessage truncates longer text (open-and-community.md 9.7); long posts go on as thread parts.
  textLimit: 40000,
  textCounting: 'code-points',
  replies: 'comment',
  mediaRules: 'Images and videos are uploaded as files and shared in one message with the part\'s text; '
    + 'the workspace may restrict file types and sizes.',
  rules: 'The app posts in the channel the settings name and must be a member of it: invite it, or use the '
    + 'joinChannel tool for a public channel. Later parts are replies in the first message\'s thread. Text is sent '
    + 'as written (Slack markup characters are escaped). username, icons and unfurling apply to text-only parts. '
    + 'About one message per second per channel.',
  settings: slackSettings,
  tools: [
    {
      methodName: 'channels',
      description: 'Lists one page of the workspace\'s public channels and the private ones the app was invited to, '
        + 'archived ones left out (id, name, whether private, whether the app is a member) and nextCursor.',
      dataSchema: [{ key: 'cursor', type: 'string', description: 'nextCursor of the previous page' }],
    },
    {
      methodName: 'joinChannel',
      description: 'Makes the bot join a public channel so it can post there.',
      dataSchema: [{ key: 'channel', type: 'string', description: 'Channel id' }],
    },
  ],
  checkPost() {
    return [];
  },
});
