/**
 * How a platform that pulls media by URL (Instagram, TikTok's photos) fetches a file: a real HTTP
 * GET of the URL it was given, read up to the platform's size limit, keeping the first bytes for
 * a signature check. Each platform's simulation judges the result by its own rules.
 */
export interface MediaDownload {
  /** HTTP status of the fetch, 0 when nothing answered. */
  status: number;
  contentType: string | null;
  /** The first bytes (at least 16 when the file has them), for the format's signature. */
  head: Buffer;
  /** Bytes read; stops just past `limit`. */
  size: number;
  tooLarge: boolean;
  /** The whole file when `keepBytes` was asked for and it was within the limit. */
  bytes: Buffer | null;
}

/** Reads the answer up to `limit` bytes, keeping the first few to look at (or all with `keepBytes`). */
export async function downloadMedia(url: string, limit: number, keepBytes = false): Promise<MediaDownload> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: 'follow' });
  } catch {
    // Unreachable or too slow: the platform says the download failed, which the caller reports.
    return { status: 0, contentType: null, head: Buffer.alloc(0), size: 0, tooLarge: false, bytes: null };
  }
  const chunks: Buffer[] = [];
  let headLength = 0;
  let size = 0;
  let tooLarge = false;
  if (response.body !== null) {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > limit) {
        tooLarge = true;
        await response.body.cancel();
        break;
      }
      if (keepBytes || headLength < 16) {
        chunks.push(Buffer.from(chunk));
        headLength += chunk.byteLength;
      }
    }
  }
  const contentType = response.headers.get('content-type');
  const kept = Buffer.concat(chunks);
  const bytes = keepBytes && !tooLarge ? kept : null;
  return { status: response.status, contentType, head: kept.subarray(0, 16), size, tooLarge, bytes };
}
