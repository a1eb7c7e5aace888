import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildCacheDir, buildCachePath, sourcesTag } from './build-cache.ts';

describe('the build cache', () => {
  afterEach(() => { vi.unstubAllEnvs(); });

  it('is one folder per user under the XDG cache home, ~/.cache when that is unset', () => {
    vi.stubEnv('SPS_BUILD_CACHE', '');
    vi.stubEnv('XDG_CACHE_HOME', '');
    expect(buildCacheDir()).toBe(path.join(homedir(), '.cache', 'sps'));
    vi.stubEnv('XDG_CACHE_HOME', '/var/cache/alice');
    expect(buildCachePath('ferretdb', 'ferretdb-v1')).toBe('/var/cache/alice/sps/ferretdb/ferretdb-v1');
  });

  it('is the folder SPS_BUILD_CACHE names, resolved from the working directory', () => {
    vi.stubEnv('XDG_CACHE_HOME', '/var/cache/alice');
    vi.stubEnv('SPS_BUILD_CACHE', 'builds');
    expect(buildCacheDir()).toBe(path.resolve('builds'));
  });

  it('names a Go wrapper\'s build by its sources: one changed byte is another build', () => {
    const wrapper = mkdtempSync(path.join(tmpdir(), 'sps-wrapper-'));
    try {
      for (const file of ['go.mod', 'go.sum', 'main.go']) writeFileSync(path.join(wrapper, file), `${file}\n`);
      const first = sourcesTag(wrapper);
      expect(first).toMatch(/^[0-9a-f]{12}$/);
      expect(sourcesTag(wrapper)).toBe(first);
      writeFileSync(path.join(wrapper, 'main.go'), 'main.go changed\n');
      expect(sourcesTag(wrapper)).not.toBe(first);
    } finally {
      rmSync(wrapper, { recursive: true, force: true });
    }
  });
});
