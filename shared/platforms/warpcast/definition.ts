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

/** Embeds a cast can carry (protocol); SPS media become URL embeds. */
const maxEmbeds = 2;

/** Facts: ../shared/platforms/open-and-community.md, section 3 (Farcaster via Neynar). */
export const warpcast = definePlatform({
  identifier: 'warpcast',
  displayName: 'Warpcast',
  group: 'social',
  // The protocol measures cast text in UTF-8 bytes (320 for a plain cast); 800 is the contract's
  // allowance for long casts, whose exact byte limit the notes could not verify.
  textLimit: 800,
  textCounting: 'utf8-bytes',
  replies: 'thread',
  mediaRules: 'Images only, at most 2 per cast, sent as public URL embeds.',
  rules:
    'Casts are published through Neynar with the user\'s signer. Text is measured in UTF-8 bytes. Media are not uploaded: each image becomes a URL embed, so it must be publicly reachable. A channel applies to the first cast only; thread parts reply to the previous cast.',
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
    return parts.flatMap((_, index) => {
      const { videos, total } = countMedia(parts, index);
      if (videos > 0) return [`part ${index + 1} has a video; Warpcast takes images only`];
      if (total > maxEmbeds) return [`part ${index + 1} has ${total} images; Warpcast takes at most ${maxEmbeds} per cast`];
      return [];
    });
  },
});
