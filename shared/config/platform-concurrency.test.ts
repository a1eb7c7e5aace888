import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const required = { SECRETS_KEY: 'a'.repeat(64) };

describe('the per-platform bounds on concurrent publishes', () => {
  it('reads platform=count pairs, and nothing when unset or empty', () => {
    const config = loadConfig({
      ...required, PUBLISH_PLATFORM_CONCURRENCY: ' warpcast=4, telegram = 20', PUBLISH_PLATFORM_UPLOAD_CONCURRENCY: '',
    });
    expect(config.PUBLISH_PLATFORM_CONCURRENCY).toEqual({ warpcast: 4, telegram: 20 });
    expect(config.PUBLISH_PLATFORM_UPLOAD_CONCURRENCY).toEqual({});
    expect(loadConfig(required).PUBLISH_PLATFORM_CONCURRENCY).toEqual({});
  });

  it.each(['warpcast', 'warpcast=0', 'warpcast=2.5', 'Warpcast=2', 'warpcast=2,'])('refuses %s at boot', (value) => {
    let problems = '';
    try {
      loadConfig({ ...required, PUBLISH_PLATFORM_UPLOAD_CONCURRENCY: value });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems = error.problems.join('\n');
    }
    expect(problems).toMatch(/PUBLISH_PLATFORM_UPLOAD_CONCURRENCY.*platform=count pairs/);
  });
});
