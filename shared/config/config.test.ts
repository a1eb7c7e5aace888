import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const key = 'a'.repeat(64);

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ SECRETS_KEY: key });
    expect(config.PORT).toBe(5000);
    expect(config.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(config.ALLOW_PRIVATE_NETWORK).toBe(false);
    expect(config.WORKER_QUEUES).toEqual([
      'publish', 'platform', 'media', 'video', 'maintenance', 'analytics', 'webhook',
    ]);
    expect(config.WEBHOOK_RETRY_SCHEDULE_MS).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000]);
    expect(config.VIDEO_MAX_DURATION_SECONDS).toBe(60);
    expect(config.AI_API_KEY).toBeUndefined();
    expect(config.PUBLIC_API_RATE_LIMIT).toBe(30);
    expect(config.PUBLIC_API_RATE_WINDOW_SECONDS).toBe(3600);
    expect(config.SECRETS_KEY).toHaveLength(32);
  });

  it('reads an empty AI setting (compose passes an unset one so) as not given, and the voices as a list', () => {
    const env = { SECRETS_KEY: key, AI_API_KEY: '', AI_IMAGE_MODEL: '', AI_SPEECH_VOICES: 'alloy,nova ' };
    const config = loadConfig(env);
    const read = [config.AI_API_KEY, config.AI_IMAGE_MODEL, config.AI_SPEECH_VOICES];
    expect(read).toEqual([undefined, undefined, ['alloy', 'nova']]);
    const tooLong = { SECRETS_KEY: key, VIDEO_MAX_DURATION_SECONDS: '3600' };
    expect(() => loadConfig(tooLong)).toThrow(/VIDEO_MAX_DURATION_SECONDS/);
  });

  it('names every wrong variable, not just the first', () => {
    let caught: unknown;
    try {
      loadConfig({ SECRETS_KEY: 'short', PORT: 'eighty', ALLOW_PRIVATE_NETWORK: 'yes' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
    expect(problems).toMatch(/^SECRETS_KEY: /m);
    expect(problems).toMatch(/^PORT: .*"eighty"/m);
    expect(problems).toMatch(/^ALLOW_PRIVATE_NETWORK: .*"yes"/m);
    expect(problems).not.toContain('short'); // the secret itself is never echoed
  });

  it('reads the webhook retry schedule as a list of waits, and refuses one that is not', () => {
    expect(loadConfig({ SECRETS_KEY: key, WEBHOOK_RETRY_SCHEDULE_MS: ' 500, 1000 ' }).WEBHOOK_RETRY_SCHEDULE_MS)
      .toEqual([500, 1_000]);
    for (const schedule of ['1000,soon', '1000,,2000', '0', '']) {
      expect(() => loadConfig({ SECRETS_KEY: key, WEBHOOK_RETRY_SCHEDULE_MS: schedule }), schedule)
        .toThrow(/^ {2}- WEBHOOK_RETRY_SCHEDULE_MS: /m);
    }
  });

  it('reads the password hash cost, 15 unless set, and refuses one outside 10 to 20 by name', () => {
    expect(loadConfig({ SECRETS_KEY: key }).PASSWORD_HASH_LOG_N).toBe(15);
    expect(loadConfig({ SECRETS_KEY: key, PASSWORD_HASH_LOG_N: '10' }).PASSWORD_HASH_LOG_N).toBe(10);
    expect(loadConfig({ SECRETS_KEY: key, PASSWORD_HASH_LOG_N: '20' }).PASSWORD_HASH_LOG_N).toBe(20);
    expect(() => loadConfig({ SECRETS_KEY: key, PASSWORD_HASH_LOG_N: '9' }))
      .toThrow(/^ {2}- PASSWORD_HASH_LOG_N: .*>=10.* \(got "9"\)$/m);
    expect(() => loadConfig({ SECRETS_KEY: key, PASSWORD_HASH_LOG_N: '21' }))
      .toThrow(/^ {2}- PASSWORD_HASH_LOG_N: .*<=20.* \(got "21"\)$/m);
  });

  it('says when a required variable is missing', () => {
    expect(() => loadConfig({})).toThrow(/SECRETS_KEY: .*it is not set/);
  });
});
