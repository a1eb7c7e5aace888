// The videos the upload benchmark sends and inspects, all made here with ffmpeg (none committed).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { padMp4 } from '../../test/support/test-media.ts';

function ffmpeg(args: readonly string[]): void {
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
}

/** H.264 + AAC with the index (moov) first, as phones and editors export for the web. */
function encode(source: string, seconds: number, target: string): string {
  ffmpeg(['-f', 'lavfi', '-i', source, '-f', 'lavfi', '-i', 'sine=frequency=440', '-t', String(seconds),
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest',
    '-movflags', '+faststart', target]);
  return target;
}

/** A playable MP4 (moov first) followed by a `free` box that pads the file to exactly `bytes`. */
export function makeUploadVideo(dir: string, bytes: number): string {
  const clip = encode('testsrc=size=1280x720:rate=30', 5, path.join(dir, 'clip.mp4'));
  return padMp4(clip, path.join(dir, 'video.mp4'), bytes);
}

/**
 * Clips unlike each other in picture, size, rate and length (landscape, portrait, square, 1080p,
 * under a second), so the inspection row's median is not one file's: ffmpeg's seek and decode
 * for the poster frame cost differently on each.
 */
const inspectionSources: readonly { source: string; seconds: number }[] = [
  { source: 'testsrc=size=1280x720:rate=30', seconds: 5 },
  { source: 'testsrc2=size=1920x1080:rate=30', seconds: 8 },
  { source: 'smptehdbars=size=720x1280:rate=30', seconds: 12 },
  { source: 'rgbtestsrc=size=1080x1080:rate=25', seconds: 3 },
  { source: 'testsrc2=size=640x360:rate=60', seconds: 0.6 },
];

export function makeInspectionClips(dir: string): string[] {
  return inspectionSources.map(({ source, seconds }, index) =>
    encode(source, seconds, path.join(dir, `inspect-${String(index + 1)}.mp4`)));
}
