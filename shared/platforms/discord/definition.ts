import { z } from 'zod';
import { whenMissing } from '../kit/missing-setting.ts';
import { mediaSizeProblems } from '../kit/media-size-limits.ts';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Where and how the bot posts; the channel must be in the guild the bot was installed to. */
export const discordSettings = z.object({
  channel: z
    .string(whenMissing('a Discord post needs a channel id (see the channels tool)'))
    .regex(/^\d{17,20}$/, 'must be a Discord channel id (a snowflake of 17 to 20 digits)')
    .describe('Id of the text, announcement or forum channel to post in (see the channels tool)'),
  thread_name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'Name of the thread that later parts go into; also the post title in a forum channel '
        + '(defaults to the start of the text)',
    ),
  spoiler_media: z.boolean().optional().describe('Hide every attachment behind a spoiler'),
});

/** Files per message: widely cited, not on the pages the notes read. */
const maxFiles = 10;

/**
 * Largest file a bot may attach in any server. Server boosts raise it, but POST /posts cannot ask
 * Discord which server a post goes to and how boosted it is, and a boost can lapse before the post
 * is due: SPS holds every server to the limit all of them take.
 */
export const discordFileLimitBytes = 10 * 1024 * 1024;

/** Largest request a message with files may be (open-and-community.md 8.3). */
export const discordMessageLimitBytes = 25 * 1024 * 1024;

/** Rounded up to a tenth, so a size just over a limit never reads as equal to it. */
export const mebibytes = (bytes: number): string => `${(Math.ceil((bytes / (1024 * 1024)) * 10) / 10).toString()} MiB`;

/** Facts: ../shared/platforms/open-and-community.md, section 8 (Discord). */
export const discord = definePlatform({
  identifier: 'discord',
  displayName: 'Discord',
  group: 'community',
  // Discord allows 2000; the contract keeps a margin below it.
  textLimit: 1980,
  textCounting: 'code-points',
  replies: 'comment',
  // The operator's one bot posts for every server: 50 requests a second in all (section 8.7).
  concurrentCalls: 12,
  mediaRules: 'Up to 10 images or videos per message, attached as files of up to 10 MiB each, 25 MiB in all.',
  rules:
    'The bot posts in the chosen channel of the connected server and needs permission to view it and send messages. '
    + 'Later parts are posted in a thread started from the first message. '
    + 'Mentions use Discord\'s <@id> and <@&role> forms.',
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
    const counts = parts.flatMap((_, index) => {
      const { total } = countMedia(parts, index);
      return total > maxFiles
        ? [`part ${index + 1} has ${total} media; Discord takes at most ${maxFiles} files per message`]
        : [];
    });
    const limits = { image: discordFileLimitBytes, video: discordFileLimitBytes };
    const totals = parts.flatMap((part, index) => {
      const bytes = part.media.reduce((sum, item) => sum + (item.sizeBytes ?? 0), 0);
      return bytes > discordMessageLimitBytes
        ? [`part ${index + 1}: the files add up to ${mebibytes(bytes)}; Discord takes at most `
          + `${mebibytes(discordMessageLimitBytes)} in one message`]
        : [];
    });
    return [...counts, ...mediaSizeProblems(parts, limits, 'Discord'), ...totals];
  },
});
