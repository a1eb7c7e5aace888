import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { buildCachePath } from '../../scripts/local/build-cache.ts';

let ffmpegVersion: string | undefined;

/** The first line of `ffmpeg -version`: another ffmpeg may make other bytes from the same recipe. */
function installedFfmpeg(): string {
  ffmpegVersion ??= execFileSync('ffmpeg', ['-version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
  return ffmpegVersion;
}

/** Every input of the recipe is one of ffmpeg's generators (`-f lavfi`): the recipe alone says what comes out. */
function assertSynthesized(recipe: readonly string[]): void {
  recipe.forEach((arg, index) => {
    if (arg === '-i' && recipe[index - 1] !== 'lavfi') {
      throw new Error(`synthesizedMedia takes generated inputs only (-f lavfi), not ${recipe[index + 1] ?? ''}`);
    }
  });
}

/**
 * Writes `target` (its extension names the format) with ffmpeg from a recipe of generated sources,
 * such as `['-f', 'lavfi', '-i', 'testsrc=size=320x240', '-t', '1', '-c:v', 'libx264']`.
 *
 * The file is made once per machine and kept in the build cache under the recipe's hash and the
 * ffmpeg version, then copied for each caller: the suite asked ffmpeg for the same few dozen
 * files in every run, and encoding them (HEVC at 1080x1920 above all) was a tenth of its CPU time.
 * Each caller gets a copy of its own, so a test may change or remove it.
 */
export function synthesizedMedia(
  recipe: readonly string[], target: string, cacheDir = buildCachePath('synthesized-media'),
): string {
  assertSynthesized(recipe);
  const extension = path.extname(target);
  const key = createHash('sha256').update(installedFfmpeg()).update('\0').update(JSON.stringify(recipe))
    .digest('hex').slice(0, 20);
  const cached = path.join(cacheDir, `${key}${extension}`);
  if (!existsSync(cached)) {
    mkdirSync(cacheDir, { recursive: true });
    // Made under a name of this process's own and renamed: files running at once never read half a file.
    const partial = path.join(cacheDir, `${key}.${String(process.pid)}-partial${extension}`);
    try {
      execFileSync('ffmpeg', ['-v', 'error', '-y', ...recipe, partial], { stdio: ['ignore', 'ignore', 'pipe'] });
      renameSync(partial, cached);
    } finally {
      rmSync(partial, { force: true });
    }
  }
  copyFileSync(cached, target);
  return target;
}
