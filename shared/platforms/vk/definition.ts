import { z } from 'zod';
import { countMedia, definePlatform } from '../kit/platform-definition.ts';

/**
 * Optional wall.post parameters that SPS passes through. The wall is the connected user's own,
 * or the community `community_id` names (one the user administers or edits, as the
 * managedCommunities tool lists them), which VK addresses as a negative owner id.
 */
export const vkSettings = z.object({
  community_id: z.number().int().positive().optional()
    .describe('Post on this community\'s wall (its id, from managedCommunities) instead of the user\'s own'),
  from_group: z.boolean().optional().describe('On a community wall, publish as the community rather than as the user'),
  signed: z.boolean().optional()
    .describe('On a community post published as the community, add the author\'s signature'),
  close_comments: z.boolean().optional().describe('Turn comments off for the post'),
  mute_notifications: z.boolean().optional().describe('Do not notify subscribers about the post'),
  copyright: z.url().max(2048).optional().describe('Link to the original source, shown under the post'),
});

const maxMedia = 10;
const photoTypes = ['image/jpeg', 'image/png', 'image/gif'];
const maxPhotoBytes = 50 * 1024 * 1024;
/** AVI, MP4, 3GP, MPEG, MOV, FLV and WMV, the containers VK's video upload takes. */
const videoTypes = [
  'video/mp4', 'video/x-msvideo', 'video/avi', 'video/3gpp', 'video/mpeg', 'video/quicktime', 'video/x-flv',
  'video/x-ms-wmv',
];

/** Facts: ../shared/platforms/open-and-community.md, section 5 (VK). */
export const vk = definePlatform({
  identifier: 'vk',
  displayName: 'VK',
  group: 'social',
  // VK does not state a wall post limit; 2048 is the contract's (and Postiz's) cap.
  textLimit: 2048,
  textCounting: 'code-points',
  replies: 'thread',
  mediaRules: 'Up to 10 photos and videos per post or comment; photos must be JPEG, PNG or GIF of at most 50 MB, '
    + 'at most 14000 px in width plus height, and no narrower than 1:20; videos AVI, MP4, 3GP, MPEG, MOV, FLV or WMV.',
  rules:
    'Posts go to the connected user\'s wall, or to the wall of the community community_id names (then from_group '
    + 'decides whether the community or the user appears as author). Thread parts become comments on the first post. '
    + 'VK grants wall posting to apps only on request, so a connection may be refused.',
  settings: vkSettings,
  tools: [
    {
      methodName: 'managedCommunities',
      description: 'Lists the communities the account administers or edits, to choose whose wall to post on.',
      dataSchema: [],
    },
  ],
  checkPost({ parts }) {
    return parts.flatMap((part, index) => {
      const problems: string[] = [];
      const { total } = countMedia(parts, index);
      if (total > maxMedia) {
        problems.push(`part ${index + 1} has ${total} media; VK takes at most ${maxMedia} per post`);
      }
      for (const item of part.media) {
        if (item.kind === 'video') {
          if (!videoTypes.includes(item.mimeType)) {
            const takes = 'VK takes AVI, MP4, 3GP, MPEG, MOV, FLV or WMV';
            problems.push(`part ${index + 1} has a ${item.mimeType} video; ${takes}`);
          }
          continue;
        }
        if (item.sizeBytes !== null && item.sizeBytes > maxPhotoBytes) {
          const megabytes = (item.sizeBytes / 1024 / 1024).toFixed(1);
          problems.push(`part ${index + 1} has a photo of ${megabytes} MB; VK takes photos up to 50 MB`);
        }
        if (!photoTypes.includes(item.mimeType)) {
          problems.push(`part ${index + 1} has a ${item.mimeType} image; VK takes JPEG, PNG or GIF photos`);
        } else if (item.width !== null && item.height !== null) {
          const { width, height } = item;
          const photo = `part ${index + 1} has a ${width}x${height} photo`;
          if (width + height > 14000) problems.push(`${photo}; VK takes at most 14000 px in width plus height`);
          else if (Math.max(width, height) > 20 * Math.min(width, height)) {
            problems.push(`${photo}; VK takes aspect ratios up to 1:20`);
          }
        }
      }
      return problems;
    });
  },
});
