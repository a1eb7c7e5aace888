import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withCompileCache } from './compile-cache.ts';

/** The compile cache folder a Node started with `env` reports, empty when the cache is off. */
function cacheOfChild(env: NodeJS.ProcessEnv): string {
  const script = 'process.stdout.write(require("node:module").getCompileCacheDir() ?? "")';
  return execFileSync(process.execPath, ['-e', script], { env, encoding: 'utf8' });
}

describe('the compile cache of the processes SPS starts', () => {
  const { NODE_COMPILE_CACHE: _cache, NODE_DISABLE_COMPILE_CACHE: _off, ...plain } = process.env;

  it('is on in Node\'s own folder under the temporary directory, and the child uses it', () => {
    const env = withCompileCache(plain);
    expect(env.NODE_COMPILE_CACHE).toBe(path.join(tmpdir(), 'node-compile-cache'));
    expect(cacheOfChild(plain)).toBe('');
    expect(cacheOfChild(env).startsWith(path.join(tmpdir(), 'node-compile-cache'))).toBe(true);
  });

  it('leaves an environment that chose a folder, or turned the cache off, as it is', () => {
    const chosen = { ...plain, NODE_COMPILE_CACHE: '/var/cache/sps-node' };
    expect(withCompileCache(chosen)).toBe(chosen);
    const off = { ...plain, NODE_DISABLE_COMPILE_CACHE: '1' };
    expect(withCompileCache(off)).toBe(off);
    expect(cacheOfChild(withCompileCache(off))).toBe('');
  });
});
