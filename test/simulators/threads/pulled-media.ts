/**
 * How the simulated Threads fetches a container's `image_url` / `video_url`, as Meta's servers do:
 * over HTTP from the address given, judging the file by its bytes (not by the name or the
 * Content-Type the server claims) and refusing it once it grows past the platform's size.
 * Facts: ../shared/platforms/oauth-majors.md, section 6.3.
 */

export type PulledFormat = 'jpeg' | 'png' | 'mp4' | 'other';

export type PulledMedia =
  | { ok: true; format: PulledFormat; size: number }
  | { ok: false; reason: 'unreachable' | 'too_large'; detail: string };

/** What the file's first bytes say it is. */
export function sniffFormat(head: Buffer): PulledFormat {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (head.length >= 8 && png.every((byte, index) => head[index] === byte)) return 'png';
  // MP4 and MOV (ISO base media) open with a box whose type sits in bytes 4-8.
  const box = head.subarray(4, 8).toString('latin1');
  if (['ftyp', 'moov', 'mdat', 'wide', 'free'].includes(box)) return 'mp4';
  return 'other';
}

/** Fetches `url` and keeps only its first bytes and its size; stops reading past `maxBytes`. */
export async function pullMedia(url: string, maxBytes: number, timeoutMs = 5_000): Promise<PulledMedia> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (error) {
    return { ok: false, reason: 'unreachable', detail: error instanceof Error ? error.message : String(error) };
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    return { ok: false, reason: 'unreachable', detail: `HTTP ${String(response.status)}` };
  }
  let size = 0;
  const head: Buffer[] = [];
  const body: AsyncIterable<Uint8Array> = response.body;
  // Leaving the loop early cancels the download, as Meta stops reading an oversized file.
  for await (const chunk of body) {
    if (size < 16) head.push(Buffer.from(chunk));
    size += chunk.byteLength;
    if (size > maxBytes) return { ok: false, reason: 'too_large', detail: `more than ${String(maxBytes)} bytes` };
  }
  return { ok: true, format: sniffFormat(Buffer.concat(head)), size };
}
