import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { synthesizedMedia } from './synthesized-media.ts';

/** A 64x48 PNG and a one-second H.264 MP4 made with ffmpeg, for tests that need no other files (makeTestMedia
 * makes many). */
export interface SmallMedia {
  png: string;
  mp4: string;
  remove(): void;
}

export function makeSmallMedia(): SmallMedia {
  const dir = mkdtempSync(path.join(tmpdir(), 'sps-small-media-'));
  const png = path.join(dir, 'image.png');
  const mp4 = path.join(dir, 'clip.mp4');
  synthesizedMedia(['-f', 'lavfi', '-i', 'testsrc=size=64x48', '-frames:v', '1'], png);
  synthesizedMedia([
    '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=30', '-t', '1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p',
  ], mp4);
  return {
    png,
    mp4,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
