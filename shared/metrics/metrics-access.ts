import { timingSafeEqual } from 'node:crypto';

/**
 * Whether a scrape may read /metrics: always without METRICS_TOKEN, else only with
 * `Authorization: Bearer <token>` (compared in constant time).
 */
export function mayReadMetrics(token: string | undefined, authorization: string | undefined): boolean {
  if (token === undefined) return true;
  const sent = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
  if (sent === undefined) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
