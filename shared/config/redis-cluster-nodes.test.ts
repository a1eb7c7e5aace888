import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const key = 'a'.repeat(64);

describe('REDIS_CLUSTER_NODES', () => {
  it('is empty by default: one Redis at REDIS_URL', () => {
    expect(loadConfig({ SECRETS_KEY: key }).REDIS_CLUSTER_NODES).toEqual([]);
    expect(loadConfig({ SECRETS_KEY: key, REDIS_CLUSTER_NODES: ' ' }).REDIS_CLUSTER_NODES).toEqual([]);
  });

  it('reads comma-separated host:port seeds, IPv6 in brackets', () => {
    const config = loadConfig({ SECRETS_KEY: key, REDIS_CLUSTER_NODES: 'redis-a:7000, 10.0.0.6:7001,[::1]:7002' });
    expect(config.REDIS_CLUSTER_NODES).toEqual([
      { host: 'redis-a', port: 7000 }, { host: '10.0.0.6', port: 7001 }, { host: '::1', port: 7002 },
    ]);
  });

  it('names the malformed entry and says what is expected', () => {
    for (const wrong of ['redis-a', 'redis-a:0', 'redis-a:70000', 'redis://redis-a:7000', 'a:7000,b']) {
      let caught: unknown;
      try {
        loadConfig({ SECRETS_KEY: key, REDIS_CLUSTER_NODES: wrong });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      const problem = (caught as ConfigError).problems.join('\n');
      expect(problem).toMatch(/^REDIS_CLUSTER_NODES: ".+" is not host:port/);
    }
  });
});
