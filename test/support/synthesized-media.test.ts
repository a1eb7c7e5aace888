import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { synthesizedMedia } from './synthesized-media.ts';

describe('synthesizedMedia: test files made by ffmpeg once per machine', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'sps-synthesized-'));
  const cache = path.join(work, 'cache');
  const still = ['-f', 'lavfi', '-i', 'testsrc=size=32x24', '-frames:v', '1'];
  afterAll(() => { rmSync(work, { recursive: true, force: true }); });

  const probe = (file: string): string => execFileSync('ffprobe', [
    '-v', 'error', '-show_entries', 'stream=codec_name,width,height', '-of', 'csv=p=0', file,
  ], { encoding: 'utf8' }).trim();

  it('makes the file in the format its name says, then copies the kept one for the next caller', () => {
    const first = synthesizedMedia(still, path.join(work, 'first.png'), cache);
    expect(probe(first)).toBe('png,32,24');
    const [kept = ''] = readdirSync(cache);
    expect(kept).toMatch(/^[0-9a-f]{20}\.png$/);
    // A kept file that is not ffmpeg's would be copied as it is: the second call reads the cache, not ffmpeg.
    writeFileSync(path.join(cache, kept), 'kept bytes');
    const second = synthesizedMedia(still, path.join(work, 'second.png'), cache);
    expect(readFileSync(second, 'utf8')).toBe('kept bytes');
    // Each caller has a copy of its own.
    rmSync(second);
    expect(statSync(path.join(cache, kept)).isFile()).toBe(true);
  });

  it('keeps one file per recipe and format, and leaves no partial file behind', () => {
    synthesizedMedia(still, path.join(work, 'still.jpg'), cache);
    synthesizedMedia([...still, '-vf', 'hflip'], path.join(work, 'flipped.jpg'), cache);
    expect(probe(path.join(work, 'still.jpg'))).toBe('mjpeg,32,24');
    expect(readdirSync(cache).filter((name) => name.endsWith('.jpg'))).toHaveLength(2);
    expect(readdirSync(cache).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it('refuses a recipe that reads a file: its bytes, not the recipe, would say what comes out', () => {
    expect(() => synthesizedMedia(['-i', '/etc/hostname'], path.join(work, 'x.png'), cache))
      .toThrow(/generated inputs only \(-f lavfi\), not \/etc\/hostname/);
  });

  it('leaves no partial file when ffmpeg fails', () => {
    expect(() => synthesizedMedia(['-f', 'lavfi', '-i', 'no-such-source'], path.join(work, 'bad.png'), cache))
      .toThrow(/No such filter: 'no-such-source'/);
    expect(readdirSync(cache).filter((name) => name.includes('partial'))).toEqual([]);
  });
});
