import { z } from 'zod';
import { countMedia, definePlatform, type PlatformSpec } from '../kit/platform-definition.ts';

/** What a Page publishes: a feed post (/feed, /photos, /videos), a Reel (/video_reels) or a story. */
export const facebookSettings = z.object({
  type: z.enum(['post', 'reel', 'story']).optional()
    .describe('Feed post (the default), Reel (one short vertical video) or story (one image or video)'),
  link: z.url({ protocol: /^https?$/ }).optional()
    .describe('Link shared with a feed post; Facebook builds its preview'),
});

/** Graph refuses photos over 4 MB (error subcode 1366046); decimal megabytes, to stay on the safe side. */
export const maxPhotoBytes = 4_000_000;
/** Photo formats a Page photo takes (JPEG, PNG, GIF, BMP, TIFF). */
export const photoTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/bmp', 'image/tiff'] as const;
/** A video sent in one request (multipart `source`): at most 1 GB and 20 minutes. */
export const maxVideoBytes = 1_000_000_000;
export const maxVideoSeconds = 20 * 60;

const megabytes = (bytes: number) => `${String(Math.round(bytes / 100_000) / 10)} MB`;

/** Each attached file against Graph's photo and video limits. */
function mediaProblems(parts: Parameters<PlatformSpec<typeof facebookSettings>['checkPost']>[0]['parts']): string[] {
  const problems: string[] = [];
  parts.forEach((part, index) => {
    for (const media of part.media) {
      const where = `part ${String(index + 1)}`;
      if (media.kind === 'image' && !(photoTypes as readonly string[]).includes(media.mimeType)) {
        const rule = 'Facebook takes JPEG, PNG, GIF, BMP or TIFF photos';
        problems.push(`${where} has an image of type ${media.mimeType}; ${rule}`);
      }
      if (media.kind === 'image' && media.sizeBytes !== null && media.sizeBytes > maxPhotoBytes) {
        problems.push(`${where} has a ${megabytes(media.sizeBytes)} image; a Facebook photo is at most 4 MB`);
      }
      if (media.kind === 'video' && media.sizeBytes !== null && media.sizeBytes > maxVideoBytes) {
        problems.push(`${where} has a ${megabytes(media.sizeBytes)} video; a Facebook video is at most 1 GB`);
      }
      if (media.kind === 'video' && media.durationSeconds !== null && media.durationSeconds > maxVideoSeconds) {
        const seconds = String(Math.round(media.durationSeconds));
        problems.push(`${where} has a ${seconds}-second video; a Facebook video lasts at most 20 minutes`);
      }
    }
  });
  return problems;
}

/** Facts: ../shared/platforms/oauth-majors.md, section 3 (Facebook Pages). */
export const facebook = definePlatform({
  identifier: 'facebook',
  displayName: 'Facebook',
  group: 'social',
  // Taken from a production scheduler's constant; Facebook's current docs do not state it.
  textLimit: 63206,
  textCounting: 'code-points',
  replies: 'comment',
  mediaRules:
    'A feed post takes images or a single video; a comment takes at most 1 image. Photos are JPEG, PNG, GIF, '
    + 'BMP or TIFF of at most 4 MB; a video is at most 1 GB and 20 minutes. Reels and stories are not published '
    + 'yet.',
  rules:
    'Posts are published on the connected Facebook Page. The first part is the post; later parts are comments on '
    + 'it by the Page, each with at most one image. A Reel is one vertical MP4 video (9:16, 3 to 90 seconds) and '
    + 'a Page may publish 30 Reels a day through the API. A story has no text of its own. A link is shared by a '
    + 'text post: a post with photos or a video carries no link. Facebook refuses the same post published twice '
    + 'in a row.',
  settings: facebookSettings,
  tools: [],
  checkPost({ settings, parts }) {
    const problems: string[] = [];
    const type = settings.type ?? 'post';
    // Refused here rather than accepted and failed at publish time: the adapter publishes feed posts only.
    if (type !== 'post') {
      const kind = type === 'reel' ? 'Reels' : 'stories';
      return [`SPS does not publish Facebook ${kind} yet; publish it as a feed post (type "post")`];
    }
    const { videos, total } = countMedia(parts);
    if (videos > 0 && total > 1) {
      problems.push(`part 1 has ${total} media with a video; a Facebook post takes images or a single video`);
    }
    if (settings.link !== undefined && total > 0) {
      problems.push(`part 1 has ${total} media and a link; a Facebook post shares a link or shows media, not both`);
    }
    parts.forEach((_, index) => {
      if (index === 0) return;
      const comment = countMedia(parts, index);
      if (comment.videos > 0 || comment.images > 1) {
        problems.push(`part ${index + 1} has ${comment.total} media; a Facebook comment takes at most 1 image`);
      }
    });
    return [...problems, ...mediaProblems(parts)];
  },
});
