import { buffer } from 'node:stream/consumers';
import { z } from 'zod';
import type { PublishMedia } from '../kit/platform-adapter.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { imageSize } from './image-size.ts';
import type { BlueskySession } from './session.ts';
import { provider, xrpcUpload, type RawBody } from './xrpc.ts';

/** A blob reference exactly as uploadBlob returned it; the record must carry it unchanged. */
const blobRef = z.object({
  $type: z.literal('blob'),
  ref: z.object({ $link: z.string().min(1) }),
  mimeType: z.string(),
  size: z.number().int().nonnegative(),
});
export type BlobRef = z.infer<typeof blobRef>;

const uploaded = z.object({ blob: blobRef });

export type PostEmbed =
  | {
      $type: 'app.bsky.embed.images';
      images: { image: BlobRef; alt: string; aspectRatio?: { width: number; height: number } }[];
    }
  | { $type: 'app.bsky.embed.video'; video: BlobRef; alt?: string };

/**
 * uploadBlob: the bytes go to the account's PDS, which answers with a reference to put in the
 * record. Uploading the same bytes again gives the same reference, so a retried part can upload
 * again; an unreferenced blob is collected by the PDS after a while.
 */
export async function uploadBlob(session: BlueskySession, body: RawBody, timeoutMs: number): Promise<BlobRef> {
  const answer = uploaded.safeParse(
    await xrpcUpload(session.server, {
      nsid: 'com.atproto.repo.uploadBlob',
      token: session.accessJwt,
      body,
      timeoutMs,
    }),
  );
  if (!answer.success) {
    throw unreadableAnswer(provider, 'Bluesky answered uploadBlob with a body');
  }
  return answer.data.blob;
}

/**
 * The embed for a part's media: up to 4 images with their alt text and aspect ratio, or one MP4
 * (the simple path of open-and-community.md 1.3: the PDS keeps the video blob and the AppView
 * processes it once the post appears). definition.ts refuses other mixes before this runs.
 */
export async function mediaEmbed(
  session: BlueskySession,
  media: PublishMedia[],
  timeoutMs: number,
): Promise<PostEmbed | undefined> {
  if (media.length === 0) return undefined;
  const [video] = media.filter((item) => item.kind === 'video');
  if (video !== undefined) {
    const blob = await uploadBlob(
      session,
      { data: await video.open(), contentType: video.mimeType, length: video.size },
      timeoutMs,
    );
    return { $type: 'app.bsky.embed.video', video: blob, ...(video.alt === null ? {} : { alt: video.alt }) };
  }
  const images = [];
  for (const image of media) {
    // Images are at most 2 MB (definition.ts): read whole, so the header gives the aspect ratio.
    const bytes = await buffer(await image.open());
    const blob = await uploadBlob(
      session,
      { data: bytes, contentType: image.mimeType, length: bytes.length },
      timeoutMs,
    );
    const size = imageSize(bytes);
    images.push({ image: blob, alt: image.alt ?? '', ...(size === null ? {} : { aspectRatio: size }) });
  }
  return { $type: 'app.bsky.embed.images', images };
}
