import { describe, expect, it } from 'vitest';
import { connectionPolicyFor } from '../net/connection-policy.ts';
import { isPrivateHost, mediaReachFor } from './media-reach.ts';
import { PlatformApps } from './platform-apps.ts';

const apps = (env: NodeJS.ProcessEnv) =>
  new PlatformApps(env, { timeoutMs: 1_000, userHosts: connectionPolicyFor(true) });

describe('isPrivateHost', () => {
  it('knows addresses and names no platform on the internet reaches', () => {
    for (const host of [
      '127.0.0.1',
      '[::1]',
      '10.0.0.5',
      '192.168.1.2',
      'localhost',
      'api.localhost',
      'nas.local',
      'minio',
      'media.internal',
      'box.home.arpa',
      '[::ffff:127.0.0.1]',
    ]) {
      expect(isPrivateHost(host), host).toBe(true);
    }
    for (const host of ['203.0.113.0', 'media.example.com', 'cdn.sps.social', '[2606:4700::1111]']) {
      expect(isPrivateHost(host), host).toBe(host === '203.0.113.0');
    }
  });
});

describe('mediaReachFor', () => {
  it('refuses only platforms that pull media by URL, when media are private and the platform is not', () => {
    const reach = mediaReachFor('http://localhost:5000/uploads/', apps({}));
    expect(reach('instagram')).toBe(false);
    expect(reach('instagram-standalone')).toBe(false);
    expect(reach('threads')).toBe(false);
    expect(reach('warpcast')).toBe(false);
    // Nostr has no API of its own: its readers are on the internet, whatever the relays' addresses.
    expect(reach('nostr')).toBe(false);
    expect(reach('x')).toBe(true);
    expect(reach('mastodon')).toBe(true);
  });

  it('accepts a public media address, and a private one when the platform API is private too', () => {
    expect(mediaReachFor('https://media.example.com/uploads/', apps({}))('threads')).toBe(true);
    const local = mediaReachFor('http://127.0.0.1:5000/uploads/', apps({ THREADS_API_URL: 'http://127.0.0.1:7000' }));
    expect(local('threads')).toBe(true);
    expect(local('instagram')).toBe(false);
  });
});
