import { z } from 'zod';
import { countMedia, type MediaFacts, type PostPartFacts } from '../kit/platform-definition.ts';
import { textLength } from '../kit/text-length.ts';

const imageTypes = ['image/jpeg', 'image/png', 'image/gif'];
/** A carousel is a PDF SPS makes from the images (images-pdf.ts), which takes JPEG and PNG. */
const carouselTypes = ['image/jpeg', 'image/png'];

/**
 * Limits from ../shared/platforms/oauth-majors.md, section 2.3: the Images API's pixel cap is
 * LinkedIn's own; the video sizes and shortest length are third-party figures consistent with
 * LinkedIn's pages (the longest length is video-rules.ts's). The 5 MB image figure is only
 * third-party and is left to LinkedIn to enforce.
 */
const maxImagePixels = 36_152_320;
const minVideoBytes = 75 * 1024;
const maxVideoBytes = 500 * 1024 * 1024;
const minVideoSeconds = 3;
/** The Comments API's text limit (a third-party figure); the post itself takes 3,000. */
export const commentTextLimit = 1250;

/** Options of POST /rest/posts for a member's post, plus how SPS should send several images. */
export const linkedinSettings = z.object({
  visibility: z
    .enum(['PUBLIC', 'CONNECTIONS', 'LOGGED_IN'])
    .optional()
    .describe('Who can see the post; PUBLIC when left out'),
  isReshareDisabledByAuthor: z.boolean().optional().describe('Stop other members from resharing the post'),
  carousel: z
    .boolean()
    .optional()
    .describe(
      'Send the images as one swipeable document (a carousel) instead of an image grid; needs 2 or more images',
    ),
});

/** What members and Pages share in their rules text. */
export const linkedinTextRules = 'LinkedIn reserves characters such as | { } @ [ ] ( ) < > # * _ ~ for its own markup; '
  + 'SPS escapes them, so write plain text. LinkedIn refuses a post whose text repeats an earlier one.';

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function mediaProblems(item: MediaFacts, carousel: boolean): string[] {
  const problems: string[] = [];
  if (item.kind === 'image') {
    if (!imageTypes.includes(item.mimeType)) {
      problems.push(`part 1 has a ${item.mimeType} image; LinkedIn takes JPEG, PNG or GIF images`);
    }
    else if (carousel && !carouselTypes.includes(item.mimeType)) {
      problems.push(`part 1 has a ${item.mimeType} image; a LinkedIn carousel takes JPEG or PNG images`);
    }
    if (item.width !== null && item.height !== null && item.width * item.height >= maxImagePixels) {
      const size = `${String(item.width)}x${String(item.height)}`;
      problems.push(`part 1 has a ${size} image; LinkedIn takes images under 36,152,320 pixels`);
    }
    return problems;
  }
  if (item.mimeType !== 'video/mp4') problems.push(`part 1 has a ${item.mimeType} video; LinkedIn takes MP4 videos`);
  const size = item.sizeBytes;
  if (size !== null && (size < minVideoBytes || size > maxVideoBytes)) {
    problems.push(`part 1 has a ${megabytes(size)} video; LinkedIn takes videos from 75 KB to 500 MB`);
  }
  if (item.durationSeconds !== null && item.durationSeconds < minVideoSeconds) {
    const seconds = item.durationSeconds.toFixed(1);
    problems.push(`part 1 has a video of ${seconds} seconds; LinkedIn takes videos of 3 seconds or more`);
  }
  return problems;
}

/** The media rules of members and Pages, as the dashboard and the API show them. */
export const linkedinMediaRules =
  'Either 1 to 20 images (JPEG, PNG or GIF, under 36 million pixels) or a single MP4 video '
  + '(75 KB to 500 MB, 3 seconds or more) as the only media; a carousel needs 2 or more JPEG or PNG images; '
  + 'comments are text only.';

/** What LinkedIn refuses in a post, as a member or as a Page: the same Posts and Comments APIs. */
export function checkLinkedinPost(settings: { carousel?: boolean }, parts: PostPartFacts[]): string[] {
  const problems: string[] = [];
  const { images, videos, total } = countMedia(parts);
  const carousel = settings.carousel === true;
  if (videos > 0 && total > 1) {
    problems.push(`part 1 has ${total} media with a video; on LinkedIn a video must be the only media`);
  }
  if (images > 20) problems.push(`part 1 has ${images} images; LinkedIn takes at most 20`);
  for (const item of parts[0]?.media ?? []) problems.push(...mediaProblems(item, carousel));
  if (carousel && (images < 2 || videos > 0)) {
    problems.push(`part 1 has ${images} images; a LinkedIn carousel needs 2 or more images and no video`);
  }
  parts.forEach((part, index) => {
    if (index === 0) return;
    if (part.media.length > 0) problems.push(`part ${index + 1} has media; LinkedIn comments are text only`);
    const length = textLength(part.text, 'code-points');
    if (length > commentTextLimit) {
      const limit = String(commentTextLimit);
      const found = `part ${String(index + 1)} has ${String(length)} characters`;
      problems.push(`${found}; a LinkedIn comment takes at most ${limit}`);
    }
  });
  return problems;
}
