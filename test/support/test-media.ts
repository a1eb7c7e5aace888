import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { synthesizedMedia } from './synthesized-media.ts';

/** Files the media tests upload, all made here, most with ffmpeg (no binaries are committed). */
export interface TestMedia {
  dir: string;
  mp4: string;
  /** 1080x1920, 60 fps HEVC in MP4: accepted by the allowlist, refused by platforms' video rules. */
  hevcMp4: string;
  /** VP9 in WebM: a video container the allowlist does not take. */
  vp9Webm: string;
  truncatedMp4: string;
  png: string;
  jpeg: string;
  gif: string;
  webp: string;
  pdf: string;
  executableAsPng: string;
  html: string;
  svg: string;
}

export function makeTestMedia(): TestMedia {
  const dir = mkdtempSync(path.join(tmpdir(), 'sps-media-'));
  const file = (name: string) => path.join(dir, name);
  const video = ['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100', '-t', '2'];
  const h264 = ['-c:v', 'libx264', '-profile:v', 'main', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'];
  synthesizedMedia([...video, ...h264], file('clip.mp4'));
  synthesizedMedia([
    '-f', 'lavfi', '-i', 'testsrc=size=1080x1920:rate=60', '-t', '1', '-c:v', 'libx265', '-preset', 'ultrafast',
    '-x265-params', 'log-level=error', '-pix_fmt', 'yuv420p', '-tag:v', 'hvc1',
  ], file('hevc.mp4'));
  synthesizedMedia([...video, '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-c:a', 'libopus', '-shortest'],
    file('clip.webm'));
  // The MP4 muxer writes the index (moov) at the end: the first half has none and cannot be read.
  const whole = readFileSync(file('clip.mp4'));
  writeFileSync(file('truncated.mp4'), whole.subarray(0, Math.floor(whole.length / 2)));
  const still = ['-f', 'lavfi', '-i', 'testsrc=size=64x48', '-frames:v', '1'];
  synthesizedMedia(still, file('image.png'));
  synthesizedMedia(still, file('image.jpg'));
  synthesizedMedia(still, file('image.gif'));
  synthesizedMedia([...still, '-c:v', 'libwebp'], file('image.webp'));
  writeFileSync(file('document.pdf'), '%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [] /Count 0>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n');
  copyFileSync('/bin/true', file('program.png'));
  writeFileSync(file('page.png'), '<!doctype html><html><body><script>alert(1)</script></body></html>');
  writeFileSync(file('drawing.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');
  return {
    dir,
    mp4: file('clip.mp4'),
    hevcMp4: file('hevc.mp4'),
    vp9Webm: file('clip.webm'),
    truncatedMp4: file('truncated.mp4'),
    png: file('image.png'),
    jpeg: file('image.jpg'),
    gif: file('image.gif'),
    webp: file('image.webp'),
    pdf: file('document.pdf'),
    executableAsPng: file('program.png'),
    html: file('page.png'),
    svg: file('drawing.svg'),
  };
}

/**
 * `source` followed by a top-level MP4 `free` box, so the result is a valid video of exactly
 * `totalBytes` (players and ffprobe skip free boxes). Written in blocks: fine for a gigabyte.
 */
export function padMp4(source: string, target: string, totalBytes: number): string {
  const head = readFileSync(source);
  const padding = totalBytes - head.length;
  if (padding < 8) throw new Error(`cannot pad ${source} (${head.length} bytes) to ${totalBytes} bytes`);
  const fd = openSync(target, 'w');
  try {
    writeSync(fd, head);
    const box = Buffer.alloc(8);
    box.writeUInt32BE(padding, 0);
    box.write('free', 4, 'latin1');
    writeSync(fd, box);
    const block = Buffer.alloc(8 * 1024 * 1024);
    for (let left = padding - 8; left > 0; left -= block.length) writeSync(fd, block, 0, Math.min(block.length, left));
  } finally {
    closeSync(fd);
  }
  return target;
}
