import { z } from 'zod';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Where and how the bot posts; the channel must be in the guild the bot was installed to. */
export const discordSettings = z.object({
  channel: z.string().regex(/^\d{17,20}$/, 'must be a Discord channel id (a snowflake of 17 to 20 digits)').describe('Id of the text, announcement or forum channel to post in (see the channels tool)'),
  thread_name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe('Name of the thread that later parts go into; also the post title in a forum channel (defaults to the start of the text)'),
  spoiler_media: z.boolean().optional().describe('Hide every attachment behind a spoiler'),
});

/** Files per message: widely cited, not on the pages the notes read. */
const maxFiles = 10;

/** Facts: ../shared/platforms/open-and-community.md, section 8 (Discord). */
export const discord = definePlatform({
  identifier: 'discord',
  displayName: 'Discord',
  group: 'community',
  // Discord allows 2000; the contract keeps a margin below it.
  textLimit: 1980,
  textCounting: 'code-points',
  replies: 'comment',
  mediaRules: 'Up to 10 images or videos per message, attached as files (10 MiB each by default).',
  rules:
    'The bot posts in the chosen channel of the connected server and needs permission to view it and send messages. Later parts are posted in a thread started from the first message. Mentions use Discord\'s <@id> and <@&role> forms.',
  settings: discordSettings,
  tools: [
    {
      methodName: 'channels',
      description: 'Lists the server\'s text, announcement and forum channels (id, name, type).',
      dataSchema: [],
    },
    {
      methodName: 'roles',
      description: 'Lists the server\'s roles, for role mentions.',
      dataSchema: [],
    },
    {
      methodName: 'searchMembers',
      description: 'Finds server members by name, for user mentions.',
      dataSchema: [{ key: 'query', type: 'string', description: 'Start of a username or nickname' }],
    },
  ],
  checkPost({ parts }) {
    return parts.flatMap((_, index) => {
      const { total } = countMedia(parts, index);
      return total > maxFiles ? [`part ${index + 1} has ${total} media; Discord takes at most ${maxFiles} files per message`] : [];
    });
  },
});
