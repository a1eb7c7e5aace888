import type Koa from 'koa';

/**
 * Makes a Koa app believe exactly `hops` proxies (TRUST_PROXY_HOPS). Each proxy appends what it
 * saw to X-Forwarded-For, so only the last `hops` entries were written by machines we trust: the
 * client address is the entry `hops` places from the right, and whatever a client put further
 * left is ignored. With 0 hops the headers are ignored and the socket's address counts.
 *
 * X-Forwarded-Proto is read the same way (Koa alone would take its left-most value, which a
 * client can supply when a proxy appends rather than replaces the header).
 */
export function trustProxyHops(app: Koa, hops: number): void {
  app.proxy = hops > 0;
  // Koa keeps the last `maxIpsCount` entries of X-Forwarded-For and takes the first of those.
  app.maxIpsCount = hops;
  if (hops === 0) return;
  Object.defineProperty(app.request, 'protocol', {
    configurable: true,
    get(this: Koa.Request): string {
      if ((this.socket as { encrypted?: boolean }).encrypted === true) return 'https';
      const entries = this.get('X-Forwarded-Proto').split(',').map((entry) => entry.trim()).filter(Boolean);
      const trusted = entries.slice(-hops)[0];
      return trusted === undefined ? 'http' : trusted.toLowerCase();
    },
  });
}
