import { z } from 'zod';
import { countMedia, type ToolDefinition, type PostPartFacts } from '../kit/platform-definition.ts';

/**
 * What both ways of connecting an Instagram account share: the container options, the media
 * rules and their check, and the tools. Facts: ../shared/platforms/oauth-majors.md, sections 4 and 5.
 */

/** Options of the media container (POST /{ig-user-id}/media); the kind follows from the media. */
export const instagramSettings = z.object({
  type: z.enum(['post', 'story']).optional().describe(
    'Feed post (the default: image, Reel or carousel, from the media) or story (exactly 1 image or video)',
  ),
  share_to_feed: z.boolean().optional().describe('For a single video (a Reel): also show it in the profile feed'),
  thumb_offset: z.number().int().min(0).optional()
    .describe('For a single video: the cover frame, in milliseconds from the start'),
  collaborators: z
    .array(z.string().regex(/^[A-Za-z0-9._]{1,30}$/, 'must be an Instagram username without @'))
    .max(3)
    .optional()
    .describe('Usernames invited as collaborators on a feed post'),
  location_id: z.string().regex(/^\d+$/, 'must be a numeric location (Page) id').optional()
    .describe('Location tagged on a feed post'),
});


/** Meta documents JPEG as the only image format and 8 MiB as the most it downloads. */
const maxImageBytes = 8 * 1024 * 1024;
/** Reels: MP4 or MOV up to 300 MB (Meta's page; a third-party page says 1 GB, unverified). */
const maxVideoBytes = 300 * 1000 * 1000;
const videoTypes = ['video/mp4', 'video/quicktime'];

/** What Instagram fetches and refuses by format and size, whatever the post's type. */
function fileProblems(media: PostPartFacts['media']): string[] {
  const problems: string[] = [];
  media.forEach((item, index) => {
    const name = `part 1 media ${index + 1}`;
    const size = item.sizeBytes;
    if (item.kind === 'image' && item.mimeType !== 'image/jpeg') {
      problems.push(`${name} is ${item.mimeType}; Instagram publishes JPEG images only`);
    }
    if (item.kind === 'image' && size !== null && size > maxImageBytes) {
      problems.push(`${name} has ${size} bytes; Instagram downloads images of at most 8 MiB`);
    }
    if (item.kind === 'video' && !videoTypes.includes(item.mimeType)) {
      problems.push(`${name} is ${item.mimeType}; Instagram videos are MP4 or MOV`);
    }
    if (item.kind === 'video' && size !== null && size > maxVideoBytes) {
      problems.push(`${name} has ${size} bytes; Instagram videos are at most 300 MB`);
    }
  });
  return problems;
}

const hashtags = /#[\p{L}\p{N}_]+/gu;
const mentions = /(?:^|[^\w.@])@[A-Za-z0-9._]+/g;

/** What Instagram refuses in a post, through Facebook Login or directly: the same container API. */
export function checkInstagramPost(settings: z.output<typeof instagramSettings>, parts: PostPartFacts[]): string[] {
  const problems: string[] = [];
  const type = settings.type ?? 'post';
  const media = parts[0]?.media ?? [];
  const { videos, total } = countMedia(parts);
  if (total < 1 || total > 10) problems.push(`part 1 has ${total} media; Instagram needs 1 to 10 images or videos`);
  if (type === 'story') {
    if (total > 1) problems.push(`part 1 has ${total} media; an Instagram story takes exactly 1 image or video`);
    const duration = media[0]?.kind === 'video' ? media[0].durationSeconds : null;
    if (duration !== null && duration > 60) {
      problems.push(`part 1 has a ${duration}-second video; an Instagram story video lasts at most 60 seconds`);
    }
  } else {
    media.forEach((item, index) => {
      const { width, height, durationSeconds } = item;
      if (item.kind === 'image' && width !== null && height !== null && height > 0) {
        const ratio = width / height;
        if (ratio < 0.795 || ratio > 1.915) {
          const found = `part 1 media ${index + 1} is ${width}x${height}`;
          problems.push(`${found}; Instagram feed images need an aspect ratio between 4:5 and 1.91:1`);
        }
      }
      if (item.kind === 'video' && durationSeconds !== null && (durationSeconds < 3 || durationSeconds > 900)) {
        const found = `part 1 media ${index + 1} lasts ${durationSeconds} seconds`;
        problems.push(`${found}; Instagram videos last 3 seconds to 15 minutes`);
      }
    });
  }
  const singleVideo = type === 'post' && videos === 1 && total === 1;
  if (!singleVideo && (settings.share_to_feed !== undefined || settings.thumb_offset !== undefined)) {
    problems.push('share_to_feed and thumb_offset apply only to an Instagram post of a single video (a Reel)');
  }
  if (type === 'story' && (settings.collaborators !== undefined || settings.location_id !== undefined)) {
    problems.push('collaborators and location_id apply only to Instagram feed posts, not stories');
  }
  const caption = parts[0]?.text ?? '';
  const tagCount = caption.match(hashtags)?.length ?? 0;
  if (tagCount > 30) problems.push(`part 1 has ${tagCount} hashtags; Instagram allows at most 30 in a caption`);
  const mentionCount = caption.match(mentions)?.length ?? 0;
  if (mentionCount > 20) {
    problems.push(`part 1 mentions ${mentionCount} accounts; Instagram allows at most 20 @-mentions in a caption`);
  }
  parts.forEach((part, index) => {
    if (index > 0 && part.media.length > 0) {
      problems.push(`part ${index + 1} has media; Instagram comments are text only`);
    }
  });
  // Last, so the first problem named stays the post's shape when both are wrong.
  problems.push(...fileProblems(media));
  return problems;
}

/** The media rules as the dashboard and the API show them. */
export const instagramMediaRules =
  'Every post needs 1 to 10 images or videos (more than one makes a carousel); images are JPEG of at '
  + 'most 8 MiB, feed images between 4:5 and 1.91:1; videos are MP4 or MOV of at most 300 MB, 3 seconds '
  + 'to 15 minutes; a story is exactly 1 image or video (video up to 60 seconds).';

/** The tools of both Instagram platforms. */
export const instagramTools: ToolDefinition[] = [
  {
    methodName: 'publishingLimit',
    description: 'Reads how many posts the account has published through the API in the last 24 hours and its quota.',
    dataSchema: [],
  },
];
