import { isIP } from 'node:net';
import { isPublicAddress } from '../net/address-policy.ts';
import type { PlatformApps } from './platform-apps.ts';
import { findPlatform } from './platforms.ts';

/**
 * Whether the platform of `provider` can fetch the media of `kind` SPS serves (every kind it
 * pulls when no kind is given); see mediaReachFor.
 */
export type MediaReach = (provider: string, kind?: 'image' | 'video') => boolean;

/** Names that only resolve inside a private network, by convention or by RFC 6761 / 6762 / 8375. */
const privateSuffixes = ['.localhost', '.local', '.internal', '.lan', '.home.arpa'];

/**
 * A host no platform on the internet can reach: a private or loopback address, `localhost`, a
 * single-label name or a private-use suffix. Other names are taken as public: resolving them here
 * would say nothing about what the platform's servers resolve.
 */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host) !== 0) return !isPublicAddress(host);
  if (host === 'localhost' || !host.includes('.')) return true;
  return privateSuffixes.some((suffix) => host.endsWith(suffix));
}

const hostOf = (url: string): string | null => (URL.canParse(url) ? new URL(url).hostname : null);

/**
 * For platforms that pull attached files from their URL (Instagram, Threads, TikTok's photos):
 * the files must be served at an address the platform reaches. A private media address is fine only when the
 * platform's own API is on a private network too (a self-hosted server or a test simulator);
 * otherwise the post would fail at publish time, so POST /posts refuses it up front.
 */
export function mediaReachFor(mediaBaseUrl: string, platforms: PlatformApps): MediaReach {
  const mediaHost = hostOf(mediaBaseUrl);
  const mediaPrivate = mediaHost === null || isPrivateHost(mediaHost);
  return (provider, kind) => {
    const pulled = findPlatform(provider)?.mediaByUrl;
    if (pulled === undefined || !mediaPrivate || (pulled === 'images' && kind === 'video')) return true;
    const apiHost = hostOf(platforms.context(provider).app.apiUrl);
    return apiHost !== null && isPrivateHost(apiHost);
  };
}
