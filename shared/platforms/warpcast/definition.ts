import { z } from 'zod';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/** Optional fields of Neynar's publish-cast body that SPS passes through. */
export const warpcastSettings = z.object({
  channel_id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z0-9-]+$/, 'must be a channel id such as "neynar" (lowercase letters, digits, hyphens)')
    .optional()
    .describe('Farcaster channel the first cast goes to; replies stay in its thread'),
});

/** Farcaster refuses a cast that mentions more accounts than this (protocol). */
const maxMentions = 10;

/** A cast carries at most 2 embeds (protocol); SPS makes each attached file one URL embed. */
export const maxCastEmbeds = 2;

/** `@name` as Farcaster writes a mention: a username of letters, digits, hyphens, dots (ENS names). */
const mention = /(?:^|[^\w@])@[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*/gi;

/** Facts: ../shared/platforms/open-and-community.md, section 3 (Farcaster via Neynar). */
export const warpcast = definePlatform({
  identifier: 'warpcast',
  displayName: 'Warpcast',
  group: 'social',
  // The protocol measures cast text in UTF-8 bytes: 320 for a plain cast. Long casts (1024) depend
  // on the account, which POST /posts cannot know, so the limit every account has applies.
  textLimit: 320,
  textCounting: 'utf8-bytes',
  replies: 'thread',
  // The operator's one Neynar key: 5 requests a second per endpoint on the Starter plan (section 3.7); a video
  // cast is a URL embed like an image, so it takes no more.
  concurrentCalls: 1,
  concurrentUploads: 1,
  mediaByUrl: true,
  mediaRules: 'Up to 2 images or videos per cast, sent as URL embeds that readers\' apps fetch from SPS\'s public '
    + 'media address.',
  rules:
    'Casts are published through Neynar with the user\'s signer. Text is measured in UTF-8 bytes, at most 320 '
    + 'per cast, with at most 10 mentions. A channel applies to the first cast only; thread parts reply to the '
    + 'previous cast.',
  settings: warpcastSettings,
  tools: [
    {
      methodName: 'searchChannels',
      description: 'Finds Farcaster channels by name to fill channel_id.',
      dataSchema: [
        { key: 'q', type: 'string', description: 'Search text' },
        { key: 'limit', type: 'number', description: 'Most channels to return' },
      ],
    },
    {
      methodName: 'userChannels',
      description: 'Lists the channels the connected account follows.',
      dataSchema: [],
    },
  ],
  checkPost({ parts }) {
    return parts.flatMap((part, index) => {
      const problems: string[] = [];
      const { total } = countMedia(parts, index);
      if (total > maxCastEmbeds) {
        problems.push(`part ${index + 1} has ${total} media; a cast carries at most ${maxCastEmbeds} embeds`);
      }
      const mentions = part.text.match(mention)?.length ?? 0;
      if (mentions > maxMentions) {
        problems.push(`part ${index + 1} mentions ${mentions} accounts; a cast mentions at most ${maxMentions}`);
      }
      return problems;
    });
  },
});
