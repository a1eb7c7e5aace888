import { describeBytes } from '../../media/media-types.ts';
import type { PostPartFacts } from './platform-definition.ts';

/** Largest file a platform takes, per kind, in bytes; a kind left out is not limited here. */
export interface MediaSizeLimits {
  image?: number;
  /** Animated GIFs, where the platform limits them apart from other images (X: 15 MB). */
  gif?: number;
  video?: number;
}

/** Rounded up to a tenth, so a file just over a limit never reads as equal to it. */
const megabytes = (bytes: number): string => `${(Math.ceil((bytes / (1024 * 1024)) * 10) / 10).toString()} MB`;

/**
 * One sentence per attached file larger than the platform takes, worded alike on every platform.
 * Files whose size is not known yet (an import still fetching) are left to the platform.
 */
export function mediaSizeProblems(parts: PostPartFacts[], limits: MediaSizeLimits, platform: string): string[] {
  return parts.flatMap((part, partIndex) =>
    part.media.flatMap((item, mediaIndex) => {
      const gif = item.mimeType === 'image/gif' && limits.gif !== undefined;
      const limit = gif ? limits.gif : limits[item.kind];
      if (limit === undefined || item.sizeBytes === null || item.sizeBytes <= limit) return [];
      const what = gif ? 'GIF' : item.kind;
      return [
        `part ${partIndex + 1}, media ${mediaIndex + 1}: the ${what} is ${megabytes(item.sizeBytes)}; `
          + `${platform} takes ${what === 'GIF' ? 'GIFs' : `${what}s`} up to ${describeBytes(limit)}`,
      ];
    }),
  );
}
